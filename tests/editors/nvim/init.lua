-- The editor profile of the end-to-end tests: the plugin from editors/nvim on the runtimepath,
-- enabled the way its README says, and nothing else.
vim.opt.runtimepath:prepend(assert(os.getenv('ERRKNOW_NVIM_PLUGIN')))
vim.opt.swapfile = false
vim.opt.shadafile = 'NONE'
vim.lsp.log.set_level(vim.log.levels.WARN)
local settings = os.getenv('ERRKNOW_E2E_SETTINGS')
if settings then
  vim.lsp.config('errknow_ls', { settings = vim.json.decode(settings) })
end
vim.lsp.enable('errknow_ls')
