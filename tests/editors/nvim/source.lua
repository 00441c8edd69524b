-- A buggy training script, as a user meets it: diagnostics, hover, the preferred quick fix, :write.
local H = dofile(assert(os.getenv('ERRKNOW_E2E_HARNESS')))
local buf = vim.api.nvim_get_current_buf()

H.wait(30000, function()
  return #vim.diagnostic.get(buf) > 0
end, 'diagnostics on the buggy script')
local client = assert(vim.lsp.get_clients({ bufnr = buf, name = 'errknow_ls' })[1], 'no errknow_ls client')
H.out.server_command = require('errknow').server_command(client.root_dir)
H.out.offset_encoding = client.offset_encoding
H.out.root_dir = client.root_dir
H.out.diagnostics = H.plain(vim.diagnostic.get(buf))

-- Hover on the finding, through the user's own command: the float it opens is what they read.
local first = vim.diagnostic.get(buf)[1]
vim.api.nvim_win_set_cursor(0, { first.lnum + 1, first.col })
vim.lsp.buf.hover()
local float = H.wait_float(10000, 'the hover window')
H.out.hover = H.window_text(float)
-- The link to the rest of the record: what `gx` opens with the cursor on it in the float.
H.out.hover_conceal = vim.wo[float].conceallevel
for row, line in ipairs(vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(float), 0, -1, false)) do
  local col = line:find('[`errknow-ls explain', 1, true)
  if col then
    vim.api.nvim_set_current_win(float)
    vim.api.nvim_win_set_cursor(float, { row, col + 2 })
    H.out.hover_link_urls = vim.ui._get_urls()
  end
end
vim.api.nvim_win_close(float, true)

-- The preferred quick fix, applied by vim.lsp.buf.code_action, then written.
local tick = vim.b[buf].changedtick
H.out.actions = {}
vim.lsp.buf.code_action({
  apply = true,
  filter = function(action)
    table.insert(H.out.actions, { title = action.title, kind = action.kind, preferred = action.isPreferred })
    return action.isPreferred == true
  end,
})
H.wait(10000, function()
  return vim.b[buf].changedtick ~= tick
end, 'the quick fix to edit the buffer')
vim.cmd('silent write')
H.wait(15000, function()
  return #vim.diagnostic.get(buf) == 0
end, 'the diagnostics to clear after the fix')
H.out.fixed_text = table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), '\n')
H.save()
