--[[
  Moves a task's score in a sweep index (deadline or verifying) if the task is still in the state
  and attempt the Watcher saw: a queued task whose job is still waiting, a check to retry later.

  KEYS[1] task hash
  KEYS[2] index (sorted set)

  ARGV[1] task id
  ARGV[2] expected status
  ARGV[3] expected attempt
  ARGV[4] new score (ms)

  Returns 1 moved · 0 the task moved on
]]
local stored = redis.call('HMGET', KEYS[1], 'status', 'attempt')
if stored[1] ~= ARGV[2] or stored[2] ~= ARGV[3] then return 0 end
redis.call('ZADD', KEYS[2], tonumber(ARGV[4]), ARGV[1])
return 1
