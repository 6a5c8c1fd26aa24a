--[[
  Creates a schedule under its tenant's bound (docs/schedules.md, "Bounds"): the count and the
  write in one step, so concurrent creates on any number of API processes never pass
  SCHEDULES_PER_TENANT.

  KEYS[1] the schedule's record (hash)
  KEYS[2] the tenant's schedule index (zset: id scored by creation time)
  KEYS[3] every schedule's index (zset: id scored by creation time)

  ARGV[1] schedule id
  ARGV[2] tenant id
  ARGV[3] the spec (JSON: name, cron, timezone, task, overlap, catchUpMs)
  ARGV[4] now (ms)
  ARGV[5] SCHEDULES_PER_TENANT

  Returns {code, count}: SCHEDULE_APPLIED · SCHEDULE_LIMIT (count: the schedules the tenant holds)
]]
--- @include "codes"

local held = redis.call('ZCARD', KEYS[2])
if held >= tonumber(ARGV[5]) then return {SCHEDULE_LIMIT, held} end
redis.call('HSET', KEYS[1], 'id', ARGV[1], 'tenantId', ARGV[2], 'spec', ARGV[3], 'state', 'active',
  'createdAt', ARGV[4], 'updatedAt', ARGV[4])
redis.call('ZADD', KEYS[2], ARGV[4], ARGV[1])
redis.call('ZADD', KEYS[3], ARGV[4], ARGV[1])
return {SCHEDULE_APPLIED, held + 1}
