--[[
  Sets of task states, as task-status.ts names them.
  TERMINAL: never left. ACTIVE: in the deadline index (someone must act by its score).
  PARKED: waiting for a person; no progress updates, no recovery.
  CLOCKED: the task's active clock runs (TASK_MAX_DURATION_MS counts this time only).
]]
--- @include "working"
local TERMINAL = {completed = true, failed = true, cancelled = true}
local ACTIVE = {queued = true, running = true, waiting_on_tool = true, retrying = true}
local PARKED = {paused = true, waiting_on_human = true}
local CLOCKED = {queued = true, running = true, waiting_on_tool = true, verifying = true, retrying = true}
