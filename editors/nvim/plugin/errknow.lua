-- errknow-ls: terminal buffers and :ErrknowExplain. The server itself is started for Python files
-- by `vim.lsp.enable('errknow_ls')` with the config in lsp/errknow_ls.lua.
if vim.g.loaded_errknow or vim.fn.has('nvim-0.11') == 0 then
  return
end
vim.g.loaded_errknow = true

-- Log-like files get the `log` filetype (after any more specific detection), so the server sees them.
vim.filetype.add({
  filename = { ['nohup.out'] = 'log' },
  pattern = {
    ['.*%.log'] = { 'log', { priority = -math.huge } },
    ['.*%.err'] = { 'log', { priority = -math.huge } },
    ['.*/slurm%-[%d_]+%.out'] = 'log',
    ['.*%.out'] = { 'log', { priority = -math.huge } },
  },
})

local group = vim.api.nvim_create_augroup('errknow', { clear = true })
vim.api.nvim_create_autocmd('TermOpen', {
  group = group,
  desc = 'errknow-ls: read the tracebacks that programs print in this terminal',
  callback = function(args)
    if vim.g.errknow_terminal ~= false then
      require('errknow').attach_terminal(args.buf)
    end
  end,
})

vim.api.nvim_create_user_command('ErrknowExplain', function(opts)
  local errknow = require('errknow')
  local bufnr = vim.api.nvim_get_current_buf()
  local text = opts.args ~= '' and opts.args
    or errknow.traceback_at(bufnr, opts.range > 0 and { opts.line1, opts.line2 } or nil)
  errknow.explain(text, bufnr)
end, {
  nargs = '?',
  range = true,
  desc = 'Explain the traceback under the cursor (or the selection, or a record id) with errknow-ls',
})
