--[[
  Deletes a schedule of a tenant with its runs and its places in the indexes. The tasks its fires
  created are the tenant's tasks and stay.

  KEYS[1] the schedule's record (hash)
  KEYS[2] its runs (hash)
  KEYS[3] its run order (zset)
  KEYS[4] the tenant's schedule index (zset)
  KEYS[5] every schedule's index (zset)

  ARGV[1] tenant id: another tenant's schedule is not found
  ARGV[2] schedule id

  Returns {code}: SCHEDULE_APPLIED · SCHEDULE_NOT_FOUND
]]
--- @include "codes"

if redis.call('HGET', KEYS[1], 'tenantId') ~= ARGV[1] then return {SCHEDULE_NOT_FOUND} end
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3])
redis.call('ZREM', KEYS[4], ARGV[2])
redis.call('ZREM', KEYS[5], ARGV[2])
return {SCHEDULE_APPLIED}
