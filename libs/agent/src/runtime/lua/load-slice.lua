--[[
  What a slice needs to start, read atomically in one round trip: the task record and the part of
  its context a slice uses (done logical steps, saved outputs, findings). The context is left out
  when the caller already holds it: same attempt and same context version, the counter every
  script that changes the context increments. A worker that ran the task's previous slice so
  reads only the record, and the cost of starting a slice no longer grows with the task's length.

  KEYS[1] task hash
  KEYS[2] done logical steps (set)
  KEYS[3] saved outputs (hash: step key -> JSON)
  KEYS[4] findings (list)

  ARGV[1] attempt of the context the caller holds ("0" none)
  ARGV[2] context version of the context the caller holds ("-1" none)

  Returns {record, 0} when the held context is current, else {record, 1, doneSteps, outputs,
  findings}; record is the hash as a flat field/value array (empty: no such task).
]]
local record = redis.call('HGETALL', KEYS[1])
if #record == 0 then return {record, 0} end
local version = redis.call('HMGET', KEYS[1], 'attempt', 'contextVersion')
if version[1] == ARGV[1] and (version[2] or '0') == ARGV[2] then return {record, 0} end
return {record, 1, redis.call('SMEMBERS', KEYS[2]), redis.call('HGETALL', KEYS[3]),
  redis.call('LRANGE', KEYS[4], 0, -1)}
