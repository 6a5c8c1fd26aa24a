--[[
  Sets of task states, as task-status.ts names them. Functions, not tables, for the same reason as
  in codes.lua (a table is built again on every call of the script that holds it).
  isTerminal: never left. isActive: in the deadline index (someone must act by its score).
  isParked: waiting for a person; no progress updates, no recovery.
  isClocked: the task's active clock runs (TASK_MAX_DURATION_MS counts this time only).
  Each answers false for a missing status (HMGET's false).
]]
--- @include "working"
local function isTerminal(status)
  return status == 'completed' or status == 'failed' or status == 'cancelled'
end
local function isActive(status)
  return status == 'queued' or status == 'running' or status == 'waiting_on_tool' or status == 'retrying'
end
local function isParked(status)
  return status == 'paused' or status == 'waiting_on_human'
end
local function isClocked(status)
  return status == 'queued' or status == 'running' or status == 'waiting_on_tool' or status == 'verifying'
    or status == 'retrying'
end
