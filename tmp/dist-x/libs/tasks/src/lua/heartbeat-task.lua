--[[
  A Worker's proof of life with its progress, fenced by attempt: writes lastHeartbeatAt and the
  progress fields, moves the task's deadline, and optionally appends a `task.progress` event.
  A write from an older attempt, or for a task no longer running (stopped, paused, recovered),
  changes nothing and tells the Worker to abandon its slice.

  KEYS[1] task hash
  KEYS[2] event stream of the shard
  KEYS[3] deadline index

  ARGV[1] attempt of the writer
  ARGV[2] now (ms)
  ARGV[3] new deadline (ms)
  ARGV[4] progress fields, JSON object of field -> string (currentStep, completedUnits, totalUnits)
  ARGV[5] event stream max length (approximate)
  ARGV[6] "1" to append a task.progress event

  Returns {code, status, attempt}: 0 written · -1 no such task · -3 stale attempt · -6 not running
]]
local stored = redis.call('HMGET', KEYS[1], 'status', 'attempt', 'tenantId')
local status, attempt = stored[1], tonumber(stored[2])
if not status then return {-1, '', 0} end
if tonumber(ARGV[1]) ~= attempt then return {-3, status, attempt} end
if status ~= 'running' and status ~= 'waiting_on_tool' then return {-6, status, attempt} end

local updates = {'lastHeartbeatAt', ARGV[2], 'updatedAt', ARGV[2]}
for name, value in pairs(cjson.decode(ARGV[4])) do
  updates[#updates + 1] = name
  updates[#updates + 1] = value
end
redis.call('HSET', KEYS[1], unpack(updates))
redis.call('ZADD', KEYS[3], tonumber(ARGV[3]), redis.call('HGET', KEYS[1], 'id'))
if ARGV[6] == '1' then
  redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[5], '*',
    'type', 'task.progress', 'taskId', redis.call('HGET', KEYS[1], 'id'), 'tenantId', stored[3] or '',
    'attempt', tostring(attempt), 'at', ARGV[2], 'status', status, 'from', status, 'data', ARGV[4])
end
return {0, status, attempt}
