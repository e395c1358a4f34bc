-- Lua sample
local M = {}

--[[ block
comment ]]
function M.greet(name, ...)
  local args = {...}
  if name == nil then
    return nil, "no name"
  elseif #args > 0 then
    print(string.format("%s and %d more", name, #args))
  end
  for i, v in ipairs(args) do print(i, v) end
  local s = [[long
string]]
  return "Hello, " .. name .. '!', 0x1F, 3.5e2
end

setmetatable(M, { __index = function(t, k) return rawget(t, k) end })
return M
