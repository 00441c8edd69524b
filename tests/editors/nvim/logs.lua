-- A log of an earlier run (nohup.out) is in the project when Neovim starts on another file: its error
-- shows on steps.py without the log (or steps.py) being opened.
local H = dofile(assert(os.getenv('ERRKNOW_E2E_HARNESS')))
local root = assert(os.getenv('ERRKNOW_E2E_ROOT'))
local steps = vim.uri_to_bufnr(vim.uri_from_fname(root .. '/steps.py'))
H.wait(30000, function()
  return #vim.diagnostic.get(steps) > 0
end, "the log's error on steps.py")
H.out.steps = H.plain(vim.diagnostic.get(steps))
H.out.loaded = {}
for _, buf in ipairs(vim.api.nvim_list_bufs()) do
  if vim.api.nvim_buf_is_loaded(buf) then
    table.insert(H.out.loaded, vim.fs.basename(vim.api.nvim_buf_get_name(buf)))
  end
end
H.save()
