-- The locale set to zh where a Neovim user sets the server's settings (`vim.lsp.config('errknow_ls',
-- { settings = { errknow = { locale = 'zh' } } })`, given by the test): what the buggy script shows.
local H = dofile(assert(os.getenv('ERRKNOW_E2E_HARNESS')))
local buf = vim.api.nvim_get_current_buf()
local CJK = '[\228-\233][\128-\191][\128-\191]' -- a UTF-8 character of U+4000–U+9FFF

-- The settings reach the server after it starts: wait for the finding in Chinese.
H.wait(30000, function()
  local found = vim.diagnostic.get(buf)
  return #found > 0 and found[1].message:find(CJK) ~= nil
end, 'the diagnostic in Chinese')
local first = vim.diagnostic.get(buf)[1]
H.out.diagnostic = first.message
H.out.related = vim.tbl_map(function(related)
  return related.message
end, vim.tbl_get(first, 'user_data', 'lsp', 'relatedInformation') or {})

-- Hover as the user reads it in the float `K` opens.
vim.api.nvim_win_set_cursor(0, { first.lnum + 1, first.col })
vim.lsp.buf.hover()
local float = H.wait_float(10000, 'the hover window')
H.out.hover = H.window_text(float)
vim.api.nvim_win_close(float, true)

-- The quick-fix titles, as `gra` lists them.
local client = assert(vim.lsp.get_clients({ bufnr = buf, name = 'errknow_ls' })[1])
local params = vim.lsp.util.make_range_params(0, client.offset_encoding)
params.context = { diagnostics = vim.lsp.diagnostic.from(vim.diagnostic.get(buf)), only = { 'quickfix' } }
local answers = assert(vim.lsp.buf_request_sync(buf, 'textDocument/codeAction', params, 10000))
H.out.actions = {}
for _, answer in pairs(answers) do
  for _, action in ipairs(answer.result or {}) do
    table.insert(H.out.actions, action.title)
  end
end
H.save()
