-- errknow-ls for Neovim 0.11+: `vim.lsp.enable('errknow_ls')` reads this file from the runtimepath
-- (nvim-lspconfig users get it the same way). Override any field with `vim.lsp.config('errknow_ls', {...})`.

---@type vim.lsp.Config
return {
  -- The workspace's .venv/bin/errknow-ls, then errknow-ls on PATH; `vim.g.errknow_cmd` overrides both.
  cmd = function(dispatchers, config)
    local errknow = require('errknow')
    local command = errknow.server_command(config.root_dir)
    if not command then
      error(errknow.NOT_FOUND, 0)
    end
    return vim.lsp.rpc.start(command, dispatchers, { cwd = config.root_dir })
  end,
  filetypes = { 'python', 'log' },
  root_markers = { 'pyproject.toml', 'setup.py', 'setup.cfg', 'requirements.txt', '.git' },
  -- The server's settings go under `settings = { errknow = { ... } }` (see the README); none are
  -- needed, and without them no workspace/didChangeConfiguration is sent at start.
}
