--[[
  Moves a task's score in a sweep index (deadline or verifying) if the task is still in the state
  and attempt the Watcher saw: a queued task whose job is still waiting, a check to retry later.

  KEYS[1] task hash
  KEYS[2] index (sorted set)

  ARGV[1] task id
  ARGV[2] expected status
  ARGV[3] expected attempt
  ARGV[4] new score (ms)

  Returns {code}: APPLIED (moved) · NOT_FOUND · STALE_ATTEMPT · NOT_ACTIVE (the task moved on)
]]
--- @include "fence"

local stored = redis.call('HMGET', KEYS[1], 'status', 'attempt')
local refusal = fenceRefusal(stored[1], stored[2], ARGV[3], function(status) return status == ARGV[2] end)
if refusal then return {refusal} end
redis.call('ZADD', KEYS[2], tonumber(ARGV[4]), ARGV[1])
return {CODE_APPLIED}
