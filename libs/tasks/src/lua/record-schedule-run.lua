--[[
  Records what one fire of a schedule did (created, skipped, refused, missed, …), keeps the
  newest runs only, remembers the fire's task for the next overlap check and releases the
  fire's claim. A schedule deleted meanwhile is not written back.

  KEYS[1] the schedule's record (hash)
  KEYS[2] its runs (hash: fire time -> run JSON)
  KEYS[3] its run order (zset: fire time scored by itself)

  ARGV[1] fire time (ms)
  ARGV[2] the run (JSON)
  ARGV[3] the task the fire created ('' for none)
  ARGV[4] the outcome
  ARGV[5] runs kept per schedule
  ARGV[6] 1: only when no run of this fire time is recorded (a missed fire beside a late one)
  ARGV[7] the claimed fire time whose claim this run releases ('' for none)

  Returns {code}: SCHEDULE_APPLIED · SCHEDULE_DUPLICATE (ARGV[6] and a run existed)
  · SCHEDULE_NOT_FOUND
]]
--- @include "codes"

if redis.call('EXISTS', KEYS[1]) == 0 then return {SCHEDULE_NOT_FOUND} end
if ARGV[7] ~= '' and redis.call('HGET', KEYS[1], 'firing') == ARGV[7] then
  redis.call('HDEL', KEYS[1], 'firing', 'firingUntil')
end
if ARGV[6] == '1' and redis.call('HEXISTS', KEYS[2], ARGV[1]) == 1 then return {SCHEDULE_DUPLICATE} end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
redis.call('ZADD', KEYS[3], ARGV[1], ARGV[1])
local extra = redis.call('ZCARD', KEYS[3]) - tonumber(ARGV[5])
if extra > 0 then
  local dropped = redis.call('ZRANGE', KEYS[3], 0, extra - 1)
  redis.call('HDEL', KEYS[2], unpack(dropped))
  redis.call('ZREMRANGEBYRANK', KEYS[3], 0, extra - 1)
end
local last = tonumber(redis.call('HGET', KEYS[1], 'lastFireTime') or '0')
if tonumber(ARGV[1]) >= last then
  redis.call('HSET', KEYS[1], 'lastFireTime', ARGV[1], 'lastOutcome', ARGV[4])
end
if ARGV[3] ~= '' then redis.call('HSET', KEYS[1], 'lastTaskId', ARGV[3]) end
return {SCHEDULE_APPLIED}
