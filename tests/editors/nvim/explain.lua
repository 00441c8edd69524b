-- A training log: :ErrknowExplain on its traceback shows the record in a float; :checkhealth.
local H = dofile(assert(os.getenv('ERRKNOW_E2E_HARNESS')))
local buf = vim.api.nvim_get_current_buf()
H.out.filetype = vim.bo[buf].filetype
H.wait(15000, function()
  return #vim.lsp.get_clients({ bufnr = buf, name = 'errknow_ls' }) > 0
end, 'errknow_ls to attach to the log')

-- The cursor on a frame in the middle of the traceback.
local rows = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
for i, row in ipairs(rows) do
  if row:find('in main') then
    vim.api.nvim_win_set_cursor(0, { i, 0 })
    break
  end
end
H.out.traceback = require('errknow').traceback_at(buf)
vim.cmd('ErrknowExplain')
local float = H.wait_float(15000, 'the explanation window')
H.out.explanation = H.window_text(float)
vim.api.nvim_win_close(float, true)

vim.cmd('checkhealth errknow')
H.out.health = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')
H.save()
