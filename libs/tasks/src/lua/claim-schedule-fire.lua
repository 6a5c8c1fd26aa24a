--[[
  Claims one fire of a schedule (docs/schedules.md, "One task per fire time"): a fire time whose
  run is recorded answers that run; one fire of a schedule is decided at a time, so the overlap
  check always sees the task of the fire before. A claim left by a Watcher that died lapses
  after its lease and is taken over; the same fire time retried (its job's next attempt) takes
  its own claim over at once.

  KEYS[1] the schedule's record (hash)
  KEYS[2] its runs (hash: fire time -> run JSON)

  ARGV[1] tenant id
  ARGV[2] fire time (ms)
  ARGV[3] now (ms)
  ARGV[4] lease (ms): how long the claim holds the schedule
  ARGV[5] 1: a manual trigger (fires a paused schedule too), 0: a fire of the cron

  Returns {code, payload}: SCHEDULE_CLAIMED (payload: the record, HGETALL's flat list)
  · SCHEDULE_DUPLICATE (payload: the recorded run's JSON) · SCHEDULE_NOT_FOUND · SCHEDULE_PAUSED
  · SCHEDULE_BUSY (payload: the fire time being decided)
]]
--- @include "codes"

if redis.call('HGET', KEYS[1], 'tenantId') ~= ARGV[1] then return {SCHEDULE_NOT_FOUND, ''} end
local run = redis.call('HGET', KEYS[2], ARGV[2])
if run then return {SCHEDULE_DUPLICATE, run} end
if ARGV[5] ~= '1' and redis.call('HGET', KEYS[1], 'state') == 'paused' then return {SCHEDULE_PAUSED, ''} end
local firing = redis.call('HGET', KEYS[1], 'firing')
local firingUntil = tonumber(redis.call('HGET', KEYS[1], 'firingUntil') or '0')
if firing and firing ~= ARGV[2] and firingUntil > tonumber(ARGV[3]) then return {SCHEDULE_BUSY, firing} end
redis.call('HSET', KEYS[1], 'firing', ARGV[2], 'firingUntil', tonumber(ARGV[3]) + tonumber(ARGV[4]))
return {SCHEDULE_CLAIMED, redis.call('HGETALL', KEYS[1])}
