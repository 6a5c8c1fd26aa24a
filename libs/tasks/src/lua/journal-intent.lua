--[[
  Journals the intent of an external write before it is made (docs/ARCHITECTURE.md, invariant 4). If the
  logical step was journalled before, nothing is written and the earlier entry is returned: a
  result means the write completed (never repeat it); an intent alone means its outcome is unknown
  (reconcile against the external system first). Fenced like every Worker write.

  KEYS[1] task hash
  KEYS[2] write journal (hash: step key -> JSON)

  ARGV[1] attempt of the writer
  ARGV[2] logical step key
  ARGV[3] intent entry, JSON

  Returns {code, status, attempt, entry}: APPLIED (intent journalled) · EXISTING (journalled
  before: its entry JSON) · NOT_FOUND · STALE_ATTEMPT · NOT_ACTIVE; status and attempt as stored
]]
--- @include "fence"
--- @include "working"

local stored = redis.call('HMGET', KEYS[1], 'status', 'attempt')
local status, attempt = stored[1], tonumber(stored[2])
local refusal = fenceRefusal(status, attempt, ARGV[1], isWorking)
if refusal then return {refusal, status or '', attempt or 0, ''} end
local existing = redis.call('HGET', KEYS[2], ARGV[2])
if existing then return {CODE_EXISTING, status, attempt, existing} end
redis.call('HSET', KEYS[2], ARGV[2], ARGV[3])
return {CODE_APPLIED, status, attempt, ''}
