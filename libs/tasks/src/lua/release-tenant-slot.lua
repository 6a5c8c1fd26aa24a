--[[
  Gives a task's running place back, and takes it out of its tenant's queue, when it stops running
  slices (docs/operations.md, "Tenant limits"): the task lifecycle calls it on every move out of
  queued or running to anything else (verifying, paused, waiting, retrying, finished), the Worker
  when a claim failed after a place was taken. Names the parked slice jobs whose turn it is now, so
  the caller wakes them at once instead of at their next retry (claim-tenant-slot.lua): the
  tenant's first queued tasks for its places now free under maxRunning, and the first queued task
  of the waiting tenant furthest below its fair share.

  KEYS[1] the active tenants (hash: tenant -> "<maxRunning, 0 = none> <weight> <last ask ms>")
  KEYS[2] the tenant's running places (sorted set: task id -> lease expiry, ms)
  KEYS[3] the tenant's queue for a place (sorted set: task id -> when it first asked, ms)
  KEYS[4] the queue's last asks (hash: task id -> "<last ask ms> <slice job id>")

  ARGV[1] task id
  ARGV[2] now (ms)
  ARGV[3] key base of every tenant's slot keys
  ARGV[4] tenant id
  ARGV[5] stale (ms): a tenant that has not asked for this long is not waiting

  Returns {code, jobs}: APPLIED · jobs a flat array of task id, slice job id, … to wake
]]
--- @include "codes"
--- @include "tenant-places"

local id, now, base, tenant = ARGV[1], tonumber(ARGV[2]), ARGV[3], ARGV[4]
redis.call('ZREM', KEYS[2], id)
redis.call('ZREM', KEYS[3], id)
redis.call('HDEL', KEYS[4], id)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
local max = tenantLimits(redis.call('HGET', KEYS[1], tenant))
local jobs = {}
local named = {}
local function name(taskId, jobId)
  if taskId and jobId and not named[taskId] then
    named[taskId] = true
    jobs[#jobs + 1] = taskId
    jobs[#jobs + 1] = jobId
  end
end
if max > 0 then
  local free = max - redis.call('ZCARD', KEYS[2])
  if free > 0 then
    for _, head in ipairs(redis.call('ZRANGE', KEYS[3], 0, free - 1)) do
      name(head, string.match(redis.call('HGET', KEYS[4], head) or '', '^%d+ (.+)$'))
    end
  end
end
local turn = neediestTenant(KEYS[1], base, '', now, tonumber(ARGV[5]))
if turn then
  local parked = firstParked(base, turn.tenant)
  name(parked[1], parked[2])
end
return {CODE_APPLIED, jobs}
