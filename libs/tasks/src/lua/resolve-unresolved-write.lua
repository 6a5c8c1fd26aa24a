--[[
  Settles a write whose outcome Vigil could not tell (docs/missions.md, "Writes never
  repeated"): a person answered whether it happened. The step it belongs to is in the record's
  `unresolvedWrite` field (JSON {key, tool, args}), written when the task began waiting.
  `done`: the journal entry becomes done with the person's answer as its result, the logical step
  counts as done and the answer is saved as its output; `not_done`: the intent is removed, so the
  write is made again when the task continues. Either way `unresolvedWrite` is cleared and the
  context version bumped (see load-slice.lua). The status change to `queued` is the caller's next
  step, through transition-task.lua; a repeated answer finds nothing left to settle (EXISTING).
  Fenced on the state, not an attempt: only while the task waits on a person for an unresolved
  write (`waiting_on_human`, statusReason `unresolved_write`).

  KEYS[1] task hash
  KEYS[2] write journal (hash)
  KEYS[3] done logical steps (set)
  KEYS[4] saved outputs (hash)

  ARGV[1] resolution: "done" or "not_done"
  ARGV[2] the write's result for "done", JSON
  ARGV[3] now (ms)

  Returns {code, status, statusReason}: APPLIED · EXISTING (already settled: nothing unresolved
  is left) · NOT_FOUND · NOT_ACTIVE (the task is not waiting on an unresolved write)
]]
--- @include "codes"

local stored = redis.call('HMGET', KEYS[1], 'status', 'statusReason', 'unresolvedWrite')
local status, reason, pending = stored[1], stored[2] or '', stored[3] or ''
if not status then return {CODE_NOT_FOUND, '', ''} end
if status ~= 'waiting_on_human' or reason ~= 'unresolved_write' then
  return {CODE_NOT_ACTIVE, status, reason}
end
if pending == '' then return {CODE_EXISTING, status, reason} end

local key = cjson.decode(pending)['key']
local intent = redis.call('HGET', KEYS[2], key)
if ARGV[1] == 'done' then
  local entry = intent and cjson.decode(intent) or {}
  entry['state'] = 'done'
  entry['at'] = tonumber(ARGV[3])
  entry['result'] = cjson.decode(ARGV[2])
  entry['resolvedBy'] = 'person'
  redis.call('HSET', KEYS[2], key, cjson.encode(entry))
  redis.call('SADD', KEYS[3], key)
  redis.call('HSET', KEYS[4], key, ARGV[2])
  redis.call('HSET', KEYS[1], 'completedUnits', redis.call('SCARD', KEYS[3]))
else
  redis.call('HDEL', KEYS[2], key)
end
redis.call('HDEL', KEYS[1], 'unresolvedWrite')
-- A worker holding this task's context from before must read it again.
redis.call('HINCRBY', KEYS[1], 'contextVersion', 1)
return {CODE_APPLIED, status, reason}
