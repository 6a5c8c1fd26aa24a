--[[
  Pauses or resumes a schedule of a tenant (the API then removes or upserts its BullMQ job
  scheduler; a fire that finds the schedule paused does nothing).

  KEYS[1] the schedule's record (hash)

  ARGV[1] tenant id: another tenant's schedule is not found
  ARGV[2] the state: active or paused
  ARGV[3] now (ms)

  Returns {code, previous state}: SCHEDULE_APPLIED · SCHEDULE_NOT_FOUND
]]
--- @include "codes"

local tenant = redis.call('HGET', KEYS[1], 'tenantId')
if tenant ~= ARGV[1] then return {SCHEDULE_NOT_FOUND, ''} end
local previous = redis.call('HGET', KEYS[1], 'state')
redis.call('HSET', KEYS[1], 'state', ARGV[2], 'updatedAt', ARGV[3])
return {SCHEDULE_APPLIED, previous}
