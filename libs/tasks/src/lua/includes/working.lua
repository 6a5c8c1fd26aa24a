--[[
  The states in which a slice of the current attempt holds the task and may write its steps
  (task-status.ts). A function, not a table, for the same reason as in codes.lua.
]]
local function isWorking(status)
  return status == 'running' or status == 'waiting_on_tool'
end
