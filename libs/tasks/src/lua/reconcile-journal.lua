--[[
  Records what the Watcher found in the external system for a write whose outcome was unknown
  (an intent without a result): the journal entry becomes `done`, the logical step counts as done
  and its output is saved, so the next attempt neither repeats the write nor loses its result.
  The task's contextVersion is incremented (see load-slice.lua).
  Fenced: only while the task is `retrying` at the given attempt (the recovery in progress).

  KEYS[1] task hash
  KEYS[2] write journal (hash)
  KEYS[3] done logical steps (set)
  KEYS[4] saved outputs (hash)

  ARGV[1] attempt the recovery acts for
  ARGV[2] logical step key
  ARGV[3] journal entry, JSON
  ARGV[4] output, JSON

  Returns {code}: APPLIED · NOT_FOUND · STALE_ATTEMPT · NOT_ACTIVE (not retrying: the task moved on)
]]
--- @include "fence"

local stored = redis.call('HMGET', KEYS[1], 'status', 'attempt')
local refusal = fenceRefusal(stored[1], stored[2], ARGV[1], function(status) return status == 'retrying' end)
if refusal then return {refusal} end
redis.call('HSET', KEYS[2], ARGV[2], ARGV[3])
redis.call('SADD', KEYS[3], ARGV[2])
redis.call('HSET', KEYS[4], ARGV[2], ARGV[4])
redis.call('HSET', KEYS[1], 'completedUnits', redis.call('SCARD', KEYS[3]))
-- A worker holding this task's context from before must read it again.
redis.call('HINCRBY', KEYS[1], 'contextVersion', 1)
return {CODE_APPLIED}
