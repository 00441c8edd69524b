-- What every scenario script shares: waiting on a condition, and writing what it saw as JSON for
-- pytest to check. A scenario is run as dofile() inside pcall; its errors end nvim with cquit.
local H = { out = {} }

--- Waits for `condition`, or fails naming what never happened.
---@param ms integer
---@param condition fun(): boolean
---@param what string
function H.wait(ms, condition, what)
  if not vim.wait(ms, condition, 20) then
    H.save()
    error(('timed out after %d ms waiting for %s'):format(ms, what), 0)
  end
end

function H.save()
  local file = assert(io.open(assert(os.getenv('ERRKNOW_E2E_OUT')), 'w'))
  file:write(vim.json.encode(H.out))
  file:close()
end

--- The first floating window, if one is open.
---@return integer?
function H.float()
  for _, win in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_config(win).relative ~= '' then
      return win
    end
  end
end

--- Waits for the floating window that `what` opens (a hover, an explanation).
---@param ms integer
---@param what string
---@return integer
function H.wait_float(ms, what)
  local float
  H.wait(ms, function()
    float = H.float()
    return float ~= nil
  end, what)
  return float
end

---@param win integer
---@return string
function H.window_text(win)
  return table.concat(vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(win), 0, -1, false), '\n')
end

---@param diagnostics vim.Diagnostic[]
function H.plain(diagnostics)
  return vim.tbl_map(function(d)
    return {
      lnum = d.lnum,
      col = d.col,
      end_lnum = d.end_lnum,
      end_col = d.end_col,
      severity = d.severity,
      message = d.message,
      source = d.source,
      code = d.code,
    }
  end, diagnostics)
end

-- Messages shown to the user (LSP window/showMessage among them), recorded as they go by.
H.out.notifications = {}
local notify = vim.notify
vim.notify = function(message, level, opts)
  table.insert(H.out.notifications, { message = message, level = level or vim.log.levels.INFO })
  return notify(message, level, opts)
end

-- A headless nvim cannot answer a prompt: record the choice it was offered and take the first.
vim.ui.select = function(items, opts, on_choice)
  H.out.select_prompts = H.out.select_prompts or {}
  local format = opts.format_item or tostring
  table.insert(H.out.select_prompts, vim.tbl_map(format, items))
  on_choice(items[1], 1)
end

return H
