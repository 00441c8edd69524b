-- A terminal buffer where the user runs a failing script: the traceback it prints becomes a
-- diagnostic on the user's own source line (steps.py, which is not open).
local H = dofile(assert(os.getenv('ERRKNOW_E2E_HARNESS')))
local root = assert(os.getenv('ERRKNOW_E2E_ROOT'))
local source = vim.fs.joinpath(root, assert(os.getenv('ERRKNOW_E2E_SOURCE')))

vim.o.shell = 'bash --norc --noprofile'
vim.cmd.terminal()
local term = vim.api.nvim_get_current_buf()
H.wait(15000, function()
  return #vim.lsp.get_clients({ bufnr = term, name = 'errknow_ls' }) > 0
end, 'errknow_ls to attach to the terminal buffer')
H.out.terminal_uri = vim.uri_from_bufnr(term)

-- Watch what the plugin sends (the call goes through unchanged).
local client = vim.lsp.get_clients({ bufnr = term, name = 'errknow_ls' })[1]
local notify = client.notify
H.out.sent = {}
client.notify = function(self, method, params)
  if method == 'errknow/terminalOutput' then
    table.insert(H.out.sent, params)
  end
  return notify(self, method, params)
end

vim.fn.chansend(vim.b[term].terminal_job_id, assert(os.getenv('ERRKNOW_E2E_RUN')) .. '\n')
H.wait(60000, function()
  local rows = vim.api.nvim_buf_get_lines(term, 0, -1, false)
  return table.concat(rows, '\n'):find('RuntimeError') ~= nil
end, 'the script to fail in the terminal')

H.wait(10000, function()
  return table.concat(vim.tbl_map(function(p) return p.text end, H.out.sent)):find('RuntimeError') ~= nil
end, 'the traceback to be forwarded')
-- Without an answer, the scenario still ends well: pytest judges what it saw.
vim.wait(tonumber(os.getenv('ERRKNOW_E2E_DIAGNOSTIC_MS')) or 20000, function()
  local b = vim.fn.bufnr(source)
  return b ~= -1 and #vim.diagnostic.get(b) > 0
end, 20)
H.out.terminal_text = table.concat(vim.api.nvim_buf_get_lines(term, 0, -1, false), '\n')
local b = vim.fn.bufnr(source)
H.out.source_diagnostics = b ~= -1 and H.plain(vim.diagnostic.get(b)) or {}
H.save()
