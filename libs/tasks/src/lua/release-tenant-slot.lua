--[[
  Gives a tenant's running place back when a task stops holding one (its slice ended without a
  next slice: verifying, paused, waiting, failed, stopped), and names the queued tasks that may
  take the places now free, first asked first, so the caller wakes their parked slice jobs at once
  instead of at their next retry (claim-tenant-slot.lua).

  KEYS[1] the tenant's running places (sorted set: task id -> lease expiry, ms)
  KEYS[2] the tenant's queue for a place (sorted set: task id -> when it first asked, ms)
  KEYS[3] the queue's last asks (hash: task id -> "<last ask ms> <slice job id>")

  ARGV[1] task id
  ARGV[2] now (ms)
  ARGV[3] maxRunning

  Returns {code, jobs}: APPLIED · jobs a flat array of task id, slice job id, … for the free places
]]
--- @include "codes"

redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', tonumber(ARGV[2]))
local free = tonumber(ARGV[3]) - redis.call('ZCARD', KEYS[1])
local jobs = {}
if free > 0 then
  for _, head in ipairs(redis.call('ZRANGE', KEYS[2], 0, free - 1)) do
    local ask = redis.call('HGET', KEYS[3], head)
    local jobId = ask and string.match(ask, '^%d+ (.+)$')
    if jobId then
      jobs[#jobs + 1] = head
      jobs[#jobs + 1] = jobId
    end
  end
end
return {CODE_APPLIED, jobs}
