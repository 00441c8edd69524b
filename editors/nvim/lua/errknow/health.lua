--- :checkhealth errknow
local M = {}

function M.check()
  local health = vim.health
  local errknow = require('errknow')
  health.start('errknow-ls')
  if vim.fn.has('nvim-0.11') == 1 then
    health.ok('Neovim ' .. tostring(vim.version()))
  else
    health.error('Neovim 0.11 or newer is needed for vim.lsp.config / vim.lsp.enable')
  end

  local config = vim.lsp.config[errknow.NAME]
  if config then
    health.ok('lsp/errknow_ls.lua found on the runtimepath')
  else
    health.error('lsp/errknow_ls.lua is not on the runtimepath', 'add editors/nvim to the runtimepath')
  end

  local root = vim.fs.root(0, config and config.root_markers or {}) or vim.fn.getcwd()
  local command = errknow.server_command(root)
  if not command then
    health.error(errknow.NOT_FOUND)
    return
  end
  local result = vim.system({ command[1], '--version' }, { text = true }):wait(10000)
  if result.code == 0 then
    health.ok(('server: %s (%s)'):format(command[1], vim.trim(result.stdout)))
  else
    health.error(('`%s --version` failed: %s'):format(command[1], vim.trim(result.stderr or '')))
  end

  local clients = vim.lsp.get_clients({ name = errknow.NAME })
  if #clients > 0 then
    for _, client in ipairs(clients) do
      health.ok(('client %d running for %s, %d buffer(s)'):format(
        client.id, client.root_dir or '(no root)', vim.tbl_count(client.attached_buffers)))
    end
  elseif vim.lsp.is_enabled and vim.lsp.is_enabled(errknow.NAME) then
    health.info('enabled; no client yet (open a Python file)')
  else
    health.warn('not enabled', "call vim.lsp.enable('errknow_ls') in your config")
  end
  health.info('terminal buffers: ' .. (vim.g.errknow_terminal == false and 'off' or 'attached on TermOpen'))
end

return M
