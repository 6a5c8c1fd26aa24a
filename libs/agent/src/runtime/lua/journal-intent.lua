--[[
  Journals the intent of an external write before it is made (DESIGN.md invariant 4). If the
  logical step was journalled before, nothing is written and the earlier entry is returned: a
  result means the write completed (never repeat it); an intent alone means its outcome is unknown
  (reconcile against the external system first). Fenced like every Worker write.

  KEYS[1] task hash
  KEYS[2] write journal (hash: step key -> JSON)

  ARGV[1] attempt of the writer
  ARGV[2] logical step key
  ARGV[3] intent entry, JSON

  Returns {code, status, attempt, entry}: 0 intent journalled · 1 already journalled (entry JSON)
  · -1 no such task · -3 stale attempt · -6 task not running; status and attempt as stored
]]
local stored = redis.call('HMGET', KEYS[1], 'status', 'attempt')
local status, attempt = stored[1], tonumber(stored[2])
if not status then return {-1, '', 0, ''} end
if tonumber(ARGV[1]) ~= attempt then return {-3, status, attempt, ''} end
if status ~= 'running' and status ~= 'waiting_on_tool' then return {-6, status, attempt, ''} end
local existing = redis.call('HGET', KEYS[2], ARGV[2])
if existing then return {1, status, attempt, existing} end
redis.call('HSET', KEYS[2], ARGV[2], ARGV[3])
return {0, status, attempt, ''}
