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

--- Sends the terminal's finished rows to the server as `errknow/terminalOutput`. The last
--- non-empty row may still be written to (a prompt, a progress bar), so it waits, unless `final`.
---@param bufnr integer
---@param state { sent: integer }
---@param final boolean
local function flush(bufnr, state, final)
  if not vim.api.nvim_buf_is_valid(bufnr) then
    return
  end
  local rows = vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)
  local last = #rows
  while last > 0 and rows[last] == '' do
    last = last - 1
  end
  local upto = final and last or last - 1
  if upto <= state.sent then
    return
  end
  local width = terminal_width(bufnr)
  -- Never cut a wrapped line in two: hold back rows that continue into the ones not sent yet.
  while not final and upto > state.sent and vim.fn.strdisplaywidth(rows[upto]) >= width do
    upto = upto - 1
  end
  if upto <= state.sent then
    return
  end
  local text = unwrap(vim.list_slice(rows, state.sent + 1, upto), width)
  state.sent = upto
  local client = M.client(bufnr)
  if client then
    client:notify('errknow/terminalOutput', {
      text = text .. '\n',
      cwd = terminal_cwd(bufnr),
      source = vim.uri_from_bufnr(bufnr),
    })
  end
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
  local state = { sent = 0 }
  local timer = assert(vim.uv.new_timer())
  vim.api.nvim_buf_attach(bufnr, false, {
    on_lines = function(_, _, _, first, last_old, last_new)
      -- Scrollback dropping rows off the top shifts what was already sent.
      if first == 0 and last_new < last_old and state.sent > 0 then
        state.sent = math.max(0, state.sent - (last_old - last_new))
      end
      timer:stop()
      timer:start(DEBOUNCE_MS, 0, vim.schedule_wrap(function()
        flush(bufnr, state, false)
      end))
    end,
    on_detach = function()
      timer:stop()
      timer:close()
    end,
  })
  vim.api.nvim_create_autocmd('TermClose', {
    buffer = bufnr,
    once = true,
    callback = function()
      -- The program's last rows arrive with the close: flush on the next loop turn, after them.
      vim.schedule(function()
        flush(bufnr, state, true)
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
