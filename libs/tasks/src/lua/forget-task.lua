--[[
  Removes a finished task from Redis once its retention has run out and its archive was written
  and read back (docs/operations.md, "Retention and archives"): the record, everything kept beside
  it, and its entries in the shard's and tenant's indexes, atomically. Refuses unless the stored
  task is still the one archived (same finishedAt, a terminal status), and keeps a child whose
  parent is still in Redis: a child leaves with or after its parent, never before.
  DEL and ZREM free memory, so this runs even when Redis is full (docs/operations.md, "A full Redis").

  KEYS[1]      task hash
  KEYS[2..9]   beside it: actions, journal, findings, outputs, done steps, triggers, messages,
               message ids
  KEYS[10..12] its children: all, running, held
  KEYS[13]     the tenant's index of all its tasks
  KEYS[14..16] the tenant's status indexes of completed, failed, cancelled
  KEYS[17]     retention index of the shard
  KEYS[18..22] the shard's deadline, call-deadline, verifying, expiry and user-update indexes
  KEYS[23]     the parent's task hash (a task without a parent: its own hash)
  KEYS[24]     its artifact list (the artifacts themselves stay in the object store)
  KEYS[25]     its live model output (a finished task's is only a reconnect window, never history)
  KEYS[26]     its steering list (instructions given while it ran; the archive keeps them)

  ARGV[1] task id
  ARGV[2] finishedAt of the task that was archived

  Returns {code, status}: APPLIED · NOT_FOUND (gone already; its index entry is dropped) ·
  STATUS_MISMATCH (not that finished task: nothing removed) · NOT_ACTIVE (its parent is still
  in Redis: nothing removed)
]]
--- @include "codes"
--- @include "statuses"

local id = ARGV[1]
local stored = redis.call('HMGET', KEYS[1], 'status', 'finishedAt', 'parentId')
if not stored[1] then
  redis.call('ZREM', KEYS[17], id)
  return {CODE_NOT_FOUND, ''}
end
if not isTerminal(stored[1]) or stored[2] ~= ARGV[2] then return {CODE_STATUS_MISMATCH, stored[1]} end
if stored[3] and stored[3] ~= '' and KEYS[23] ~= KEYS[1] and redis.call('EXISTS', KEYS[23]) == 1 then
  return {CODE_NOT_ACTIVE, stored[1]}
end
redis.call('UNLINK', KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7], KEYS[8], KEYS[9],
  KEYS[10], KEYS[11], KEYS[12], KEYS[24], KEYS[25], KEYS[26])
for i = 13, 22 do redis.call('ZREM', KEYS[i], id) end
return {CODE_APPLIED, stored[1]}
