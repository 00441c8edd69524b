-- A user's settings (`vim.lsp.config('errknow_ls', { settings = ... })`): they apply, and starting
-- the server with them shows the user no error.
local H = dofile(assert(os.getenv('ERRKNOW_E2E_HARNESS')))
local buf = vim.api.nvim_get_current_buf()
H.wait(30000, function()
  local found = vim.diagnostic.get(buf)
  return #found > 0 and found[1].severity == vim.diagnostic.severity.WARN
end, 'a diagnostic with the configured severity')
H.out.diagnostics = H.plain(vim.diagnostic.get(buf))
-- A request after them: every message the server sent before its answer has been handled by then.
local client = assert(vim.lsp.get_clients({ bufnr = buf, name = 'errknow_ls' })[1])
local params = vim.lsp.util.make_position_params(0, client.offset_encoding)
H.out.hover = vim.lsp.buf_request_sync(buf, 'textDocument/hover', params, 10000) ~= nil
H.save()
