-- A run fails in a terminal, the user fixes the script, a second run of the same command ends with
-- exit code 0: the error the first run put on steps.py goes. ERRKNOW_E2E_MODE picks the terminal:
-- `job` runs each `:terminal python fit.py` as its own job (the run ends with the job: TermClose);
-- `shell` types the command twice into one bash whose prompt marks its runs (OSC 133).
local H = dofile(assert(os.getenv('ERRKNOW_E2E_HARNESS')))
local root = assert(os.getenv('ERRKNOW_E2E_ROOT'))
local run = assert(os.getenv('ERRKNOW_E2E_RUN'))
local mode = assert(os.getenv('ERRKNOW_E2E_MODE'))
local steps = vim.fs.joinpath(root, 'steps.py')
vim.o.shell = 'bash --norc --noprofile'

-- Every notification the plugin sends to the server (the call goes through unchanged).
H.out.ends = {}
H.out.chunks = {}
local function watch(client)
  if client.errknow_watched then
    return
  end
  client.errknow_watched = true
  local notify = client.notify
  client.notify = function(self, method, params)
    if method == 'errknow/terminalOutput' then
      table.insert(params['end'] and H.out.ends or H.out.chunks, {
        source = params.source,
        command = params.command or vim.NIL,
        text = params.text,
      })
      if params['end'] then
        H.out.ends[#H.out.ends] = params
      end
    end
    return notify(self, method, params)
  end
end

local function attached(term)
  H.wait(15000, function()
    return #vim.lsp.get_clients({ bufnr = term, name = 'errknow_ls' }) > 0
  end, 'errknow_ls to attach to the terminal buffer')
  watch(vim.lsp.get_clients({ bufnr = term, name = 'errknow_ls' })[1])
end

local function runtime_errors()
  local b = vim.fn.bufnr(steps)
  if b == -1 then
    return {}
  end
  return vim.tbl_filter(function(d)
    return d.code == 'runtime'
  end, vim.diagnostic.get(b))
end

local function ended(count)
  H.wait(60000, function()
    return #H.out.ends >= count
  end, ('run %d to end'):format(count))
end

local shell
local function start_run(count)
  if mode == 'job' then
    vim.cmd('botright new')
    vim.cmd.terminal(run)
    attached(vim.api.nvim_get_current_buf())
  else
    if not shell then
      vim.cmd.terminal()
      shell = vim.api.nvim_get_current_buf()
      attached(shell)
      -- Prompt marks as a shell's prompt integration prints them: A prompt, B command, C output, D;status.
      vim.fn.chansend(vim.b[shell].terminal_job_id,
        [[PS0='\e]133;C\a'; PROMPT_COMMAND='printf "\e]133;D;%s\a" $?'; PS1='\[\e]133;A\a\]$ \[\e]133;B\a\]']] .. '\n')
    end
    vim.fn.chansend(vim.b[shell].terminal_job_id, run .. '\n')
  end
  ended(count)
end

-- The first run raises: the error lands on steps.py's `loss.backward()` (line 5).
start_run(1)
H.wait(20000, function()
  return #runtime_errors() > 0
end, 'the runtime error on steps.py')
H.out.first = H.plain(runtime_errors())

-- The fix is in fit.py (the loss built on every step): steps.py's line is unchanged, so only a run
-- can show the error gone.
vim.cmd.edit(vim.fs.joinpath(root, 'fit.py'))
local lines = vim.api.nvim_buf_get_lines(0, 0, -1, false)
local at = assert(vim.iter(ipairs(lines)):find(function(_, line)
  return line == '    step(loss)'
end))
vim.api.nvim_buf_set_lines(0, at - 1, at - 1, false, { '    loss = (weights * weights).sum()' })
vim.cmd.write()
vim.wait(1000, function()
  return #runtime_errors() == 0
end, 50)
H.out.after_fix = H.plain(runtime_errors())

-- The same command again: it ends with exit code 0, and the error goes.
start_run(2)
vim.wait(20000, function()
  return #runtime_errors() == 0
end, 20)
H.out.after_rerun = H.plain(runtime_errors())
H.save()
