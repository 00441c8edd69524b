--- errknow-ls in Neovim: finding the server, forwarding terminal output, explaining a traceback.
local M = {}

M.NAME = 'errknow_ls'
M.NOT_FOUND = 'errknow-ls not found: install it in the project (`.venv/bin/pip install errknow-ls`) '
  .. 'or on PATH (`pipx install errknow-ls`), or set vim.g.errknow_cmd = { "/path/to/errknow-ls", "serve" }'

--- The command that starts the server, or nil when there is none to start.
---@param root string?
---@return string[]?
function M.server_command(root)
  if type(vim.g.errknow_cmd) == 'table' then
    return vim.g.errknow_cmd
  end
  for _, dir in ipairs({ root, vim.fn.getcwd() }) do
    local candidate = dir and vim.fs.joinpath(dir, '.venv', 'bin', 'errknow-ls')
    if candidate and vim.fn.executable(candidate) == 1 then
      return { candidate, 'serve' }
    end
  end
  if vim.fn.executable('errknow-ls') == 1 then
    return { vim.fn.exepath('errknow-ls'), 'serve' }
  end
  return nil
end

--- The running client for a buffer: the one attached to it, else any errknow-ls client.
---@param bufnr integer?
---@return vim.lsp.Client?
function M.client(bufnr)
  local clients = vim.lsp.get_clients({ name = M.NAME, bufnr = bufnr })
  if #clients == 0 then
    clients = vim.lsp.get_clients({ name = M.NAME })
  end
  return clients[1]
end

-- Terminal buffers ----------------------------------------------------------------------------

local DEBOUNCE_MS = 100

--- Joins screen rows the terminal wrapped: a row exactly as wide as the terminal goes on in the next.
---@param rows string[]
---@param width integer
---@return string
local function unwrap(rows, width)
  local out, current = {}, {}
  for _, row in ipairs(rows) do
    table.insert(current, row)
    if width <= 0 or vim.fn.strdisplaywidth(row) < width then
      table.insert(out, table.concat(current))
      current = {}
    end
  end
  if #current > 0 then
    table.insert(out, table.concat(current))
  end
  return table.concat(out, '\n')
end

---@param bufnr integer
---@return integer
local function terminal_width(bufnr)
  local win = vim.fn.bufwinid(bufnr)
  if win == -1 then
    return vim.o.columns
  end
  local info = vim.fn.getwininfo(win)[1]
  return info.width - info.textoff
end

--- The directory the terminal started in: from the buffer name term://{cwd}//{pid}:{cmd}.
---@param bufnr integer
---@return string
local function terminal_cwd(bufnr)
  local cwd = vim.api.nvim_buf_get_name(bufnr):match('^term://(.-)//%d+:')
  return vim.fs.normalize(cwd or vim.fn.getcwd())
end

--- The command line a terminal's job runs as one run, from its argv: `{cmd}` for `:terminal {cmd}`
--- (Neovim runs 'shell' 'shellcmdflag' {cmd}), the argv itself for a job started with one; nil for
--- `:terminal` alone, an interactive 'shell' whose exit status is no run's (the runs inside it are
--- known only from its prompt marks, OSC 133).
---@param bufnr integer
---@return string?
local function job_command(bufnr)
  local ok, info = pcall(vim.api.nvim_get_chan_info, vim.bo[bufnr].channel)
  local argv = ok and info.argv or {}
  local shell = vim.split(vim.o.shell, '%s+', { trimempty = true })
  local flag = vim.split(vim.o.shellcmdflag, '%s+', { trimempty = true })
  if #argv == 0 or #shell == 0 then
    return nil
  end
  if #argv == #shell + #flag + 1 and vim.deep_equal(vim.list_slice(argv, #shell + 1, #shell + #flag), flag) then
    return argv[#argv]
  end
  local same_shell = vim.fs.basename(argv[1]) == vim.fs.basename(shell[1])
  if same_shell and vim.deep_equal(vim.list_slice(argv, 2), vim.list_slice(shell, 2)) then
    return nil
  end
  return table.concat(argv, ' ')
end

--- The fields of `errknow/terminalOutput` that say which run a chunk belongs to: the run the shell
--- marked (its own source, the command typed at the prompt, the terminal's buffer number), else a
--- job that is itself the run (`:terminal python train.py`: its command and directory), else the
--- shell's output outside any marked run.
---@param bufnr integer
---@param state table
---@return table
local function run_fields(bufnr, state)
  local fields = { cwd = terminal_cwd(bufnr), source = vim.uri_from_bufnr(bufnr) }
  if state.run then
    fields.source = fields.source .. '#run=' .. state.run.number
    fields.terminal = bufnr
    fields.command = state.run.command
  else
    fields.command = state.job_command
  end
  return fields
end

---@param bufnr integer
---@param fields table
local function notify(bufnr, fields)
  local client = M.client(bufnr)
  if client then
    client:notify('errknow/terminalOutput', fields)
  end
end

--- Sends rows `state.sent + 1 .. upto` (joined where the terminal wrapped them) for the current run.
---@param bufnr integer
---@param state table
---@param rows string[]
---@param upto integer
local function send_rows(bufnr, state, rows, upto)
  upto = math.min(upto, #rows)
  if upto <= state.sent then
    return
  end
  local text = unwrap(vim.list_slice(rows, state.sent + 1, upto), terminal_width(bufnr))
  state.sent = upto
  notify(bufnr, vim.tbl_extend('force', run_fields(bufnr, state), { text = text .. '\n' }))
end

--- The command line typed at the prompt: from where the prompt ended (OSC 133;B) to the row
--- before the output began (OSC 133;C).
---@param rows string[]
---@param prompt { row: integer, col: integer }?
---@param output_row integer
---@return string?
local function typed_command(rows, prompt, output_row)
  if not prompt or prompt.row >= output_row or not rows[prompt.row] then
    return nil
  end
  local typed = { rows[prompt.row]:sub(prompt.col + 1) }
  vim.list_extend(typed, vim.list_slice(rows, prompt.row + 1, output_row - 1))
  local command = vim.trim(table.concat(typed))
  return command ~= '' and command or nil
end

--- Applies the prompt marks received since the last flush: a run's output starts at its C row and
--- ends at its D row, where the shell reported the exit status.
---@param bufnr integer
---@param state table
---@param rows string[]
local function apply_marks(bufnr, state, rows)
  while #state.marks > 0 do
    local mark = table.remove(state.marks, 1)
    if mark.kind == 'C' then
      send_rows(bufnr, state, rows, mark.row - 1) -- what came before, the prompt included
      state.runs = state.runs + 1
      state.run = { number = state.runs, command = typed_command(rows, mark.prompt, mark.row) }
    elseif mark.kind == 'D' and state.run then
      send_rows(bufnr, state, rows, mark.col > 0 and mark.row or mark.row - 1)
      notify(bufnr, vim.tbl_extend('force', run_fields(bufnr, state), {
        text = '',
        ['end'] = true,
        exitCode = mark.status,
      }))
      state.run = nil
    end
  end
end

--- Sends the terminal's finished rows to the server as `errknow/terminalOutput`. The last
--- non-empty row may still be written to (a prompt, a progress bar), so it waits, unless `final`.
---@param bufnr integer
---@param state table
---@param final boolean
local function flush(bufnr, state, final)
  if not vim.api.nvim_buf_is_valid(bufnr) then
    return
  end
  local rows = vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)
  apply_marks(bufnr, state, rows)
  local last = #rows
  while last > 0 and rows[last] == '' do
    last = last - 1
  end
  local upto = final and last or last - 1
  local width = terminal_width(bufnr)
  -- Never cut a wrapped line in two: hold back rows that continue into the ones not sent yet.
  while not final and upto > state.sent and vim.fn.strdisplaywidth(rows[upto]) >= width do
    upto = upto - 1
  end
  send_rows(bufnr, state, rows, upto)
end

--- A prompt mark (OSC 133, "semantic prompts") the shell printed: B where the prompt ends and the
--- command is typed, C where its output begins, D;status where it ended.
---@param state table
---@param sequence string
---@param cursor { [1]: integer, [2]: integer }?
---@return boolean queued
local function prompt_mark(state, sequence, cursor)
  local kind, rest = sequence:match('^\27%]133;(%u)(.*)$')
  if not kind or not cursor then
    return false
  end
  local at = { row = cursor[1], col = cursor[2] }
  if kind == 'B' then
    state.prompt = at
  elseif kind == 'C' then
    table.insert(state.marks, { kind = 'C', row = at.row, col = at.col, prompt = state.prompt })
    state.prompt = nil
  elseif kind == 'D' then
    table.insert(state.marks, { kind = 'D', row = at.row, col = at.col, status = tonumber(rest:match('^;(%-?%d+)')) })
  else
    return false
  end
  return true
end

--- Attaches errknow-ls to a terminal buffer and streams the rows its programs print.
---@param bufnr integer
function M.attach_terminal(bufnr)
  local config = vim.lsp.config[M.NAME]
  if not config or vim.b[bufnr].errknow_attached then
    return
  end
  local cwd = terminal_cwd(bufnr)
  local root = vim.fs.root(cwd, config.root_markers or {})
  if not root then
    -- Not in a project: only join a server that already runs, never start one for any shell.
    local running = M.client()
    if not running then
      return
    end
    root = running.root_dir or cwd
  end
  if type(config.cmd) == 'function' and not M.server_command(root) then
    return -- no server to start: a terminal is no place for the error
  end
  local ok, client_id = pcall(vim.lsp.start, vim.tbl_extend('force', config, { root_dir = root }), {
    bufnr = bufnr,
  })
  if not ok or not client_id then
    return
  end
  vim.b[bufnr].errknow_attached = true
  local state = { sent = 0, marks = {}, runs = 0, job_command = job_command(bufnr) }
  local timer = assert(vim.uv.new_timer())
  local function later()
    timer:stop()
    timer:start(DEBOUNCE_MS, 0, vim.schedule_wrap(function()
      flush(bufnr, state, false)
    end))
  end
  vim.api.nvim_buf_attach(bufnr, false, {
    on_lines = function(_, _, _, first, last_old, last_new)
      -- Scrollback dropping rows off the top shifts what was already sent, and the marks.
      if first == 0 and last_new < last_old then
        local gone = last_old - last_new
        state.sent = math.max(0, state.sent - gone)
        local shifted = {} -- a C mark shares its prompt with state.prompt until the next B
        for _, mark in ipairs(state.marks) do
          shifted[mark] = true
          if mark.prompt then
            shifted[mark.prompt] = true
          end
        end
        if state.prompt then
          shifted[state.prompt] = true
        end
        for mark in pairs(shifted) do
          mark.row = mark.row - gone
        end
      end
      later()
    end,
    on_detach = function()
      timer:stop()
      timer:close()
    end,
  })
  vim.api.nvim_create_autocmd('TermRequest', {
    buffer = bufnr,
    desc = 'errknow-ls: where a run in this shell begins and ends (OSC 133 prompt marks)',
    callback = function(args)
      -- The rows the mark follows reach the buffer on its next refresh: flush after it.
      if type(args.data) == 'table' and prompt_mark(state, args.data.sequence, args.data.cursor) then
        later()
      end
    end,
  })
  vim.api.nvim_create_autocmd('TermClose', {
    buffer = bufnr,
    once = true,
    callback = function()
      local status = vim.v.event.status
      -- The program's last rows arrive with the close: flush on the next loop turn, after them.
      vim.schedule(function()
        flush(bufnr, state, true)
        local fields = run_fields(bufnr, state)
        -- A job that is itself the run ended with its status; a shell's own status is no run's.
        local ended = { text = '', ['end'] = true, exitCode = state.job_command and status or nil }
        notify(bufnr, vim.tbl_extend('force', fields, ended))
      end)
    end,
  })
end

-- Explaining a traceback -------------------------------------------------------------------------

local EXCEPTION = '^%s*[%a_][%w_.]*[%a_]%w*:'

--- The traceback around the cursor: from the nearest `Traceback` row at or above it down to the
--- exception message, or the visual range when one is given.
---@param bufnr integer
---@param range? { [1]: integer, [2]: integer } 1-based inclusive rows
---@return string
function M.traceback_at(bufnr, range)
  if range then
    return table.concat(vim.api.nvim_buf_get_lines(bufnr, range[1] - 1, range[2], false), '\n')
  end
  local rows = vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)
  local cursor = vim.api.nvim_win_get_cursor(0)[1]
  local start = cursor
  while start > 1 and not rows[start]:find('Traceback %(most recent call last%)') do
    start = start - 1
  end
  if not rows[start]:find('Traceback %(most recent call last%)') then
    start = cursor
  end
  local stop = math.max(start, cursor)
  while stop < #rows and not (rows[stop]:find(EXCEPTION) and not rows[stop]:find('^%s*File ')) do
    stop = stop + 1
  end
  if vim.bo[bufnr].buftype ~= 'terminal' then
    return table.concat(vim.list_slice(rows, start, stop), '\n')
  end
  -- In a terminal the message goes on over the rows it wrapped.
  local width = terminal_width(bufnr)
  while stop < #rows and vim.fn.strdisplaywidth(rows[stop]) >= width do
    stop = stop + 1
  end
  return unwrap(vim.list_slice(rows, start, stop), width)
end

--- Asks the server to explain `text` (a record id or a traceback) and shows the answer in a float.
---@param text string
---@param bufnr integer
function M.explain(text, bufnr)
  local client = M.client(bufnr)
  if not client then
    vim.notify('errknow-ls is not running here: open a Python file of the project first', vim.log.levels.WARN)
    return
  end
  client:request('workspace/executeCommand', { command = 'errknow.explain', arguments = { text } },
    function(err, result)
      if err then
        vim.notify('errknow.explain failed: ' .. tostring(err.message), vim.log.levels.ERROR)
        return
      end
      if not result or not result.markdown or result.markdown == '' then
        vim.notify('errknow: no record explains this text', vim.log.levels.INFO)
        return
      end
      local lines = vim.split(result.markdown, '\n', { plain = true })
      local float_buf, win = vim.lsp.util.open_floating_preview(lines, 'markdown', {
        border = 'rounded',
        focus_id = 'errknow_explain',
        max_width = math.min(100, vim.o.columns - 4),
      })
      vim.b[float_buf].errknow_explain = result
      M.last_explain = { buf = float_buf, win = win, result = result }
    end, bufnr)
end

return M
