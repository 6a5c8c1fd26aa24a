--[[
  A Worker's proof of life with its progress, fenced by attempt: writes lastHeartbeatAt and the
  progress fields, moves the task's deadline, records the call in flight (or none) in the
  call-deadline index, and optionally appends a `task.progress` event.
  A write from an older attempt, or for a task no longer running (stopped, paused, recovered),
  changes nothing and tells the Worker to abandon its slice.

  KEYS[1] task hash
  KEYS[2] event stream of the shard
  KEYS[3] deadline index
  KEYS[4] call-deadline index

  ARGV[1] attempt of the writer
  ARGV[2] now (ms)
  ARGV[3] new deadline (ms)
  ARGV[4] fields, JSON object of field -> string (currentStep, completedUnits, totalUnits, inFlight,
          loopLagMs)
  ARGV[5] event stream max length (approximate)
  ARGV[6] "1" to append a task.progress event
  ARGV[7] deadline of the call in flight (ms), "" when none is

  Returns {code, status, attempt}: APPLIED · NOT_FOUND · STALE_ATTEMPT · NOT_ACTIVE (not running)
]]
--- @include "fence"
--- @include "working"
--- @include "event"

local stored = redis.call('HMGET', KEYS[1], 'status', 'attempt', 'tenantId', 'id')
local status, attempt = stored[1], tonumber(stored[2])
local refusal = fenceRefusal(status, attempt, ARGV[1], isWorking)
if refusal then return {refusal, status or '', attempt or 0} end

local updates = {'lastHeartbeatAt', ARGV[2], 'updatedAt', ARGV[2]}
for name, value in pairs(cjson.decode(ARGV[4])) do
  updates[#updates + 1] = name
  updates[#updates + 1] = value
end
redis.call('HSET', KEYS[1], unpack(updates))
redis.call('ZADD', KEYS[3], tonumber(ARGV[3]), stored[4])
if ARGV[7] ~= '' then
  redis.call('ZADD', KEYS[4], tonumber(ARGV[7]), stored[4])
else
  redis.call('ZREM', KEYS[4], stored[4])
end
if ARGV[6] == '1' then
  emitEvent(KEYS[2], ARGV[5], 'task.progress', stored[4], stored[3], attempt, ARGV[2], status, status, ARGV[4])
end
return {CODE_APPLIED, status, attempt}
