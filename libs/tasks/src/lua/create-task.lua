--[[
  Creates a task record in state `queued`, its indexes and its `task.created` event, atomically.
  With an idempotency key the id is derived from (tenant, key), so a repeat lands on the same record.

  KEYS[1] task hash
  KEYS[2] tenant index (all tasks, scored by createdAt)
  KEYS[3] tenant index for status `queued`
  KEYS[4] event stream of the shard
  KEYS[5] deadline index (a queued slice must be picked up by this time)
  KEYS[6] expiry index (createdAt + TASK_MAX_DURATION_MS)
  KEYS[7] user-update index (next update due)

  ARGV[1] task id
  ARGV[2] fields, JSON object of field -> string
  ARGV[3] request hash ("" when no idempotency key was given)
  ARGV[4] now (ms)
  ARGV[5] pick-up deadline (ms)
  ARGV[6] expiry (ms)
  ARGV[7] first user update due (ms)
  ARGV[8] event stream max length (approximate)

  Returns {code, id}: CREATED · EXISTING (same request seen before) · IDEMPOTENCY_CONFLICT (same
  key, another request)
]]
--- @include "codes"
--- @include "event"

local existingHash = redis.call('HGET', KEYS[1], 'requestHash')
if existingHash then
  if ARGV[3] ~= '' and existingHash == ARGV[3] then return {CODE_EXISTING, ARGV[1]} end
  return {CODE_IDEMPOTENCY_CONFLICT, ARGV[1]}
end
if redis.call('EXISTS', KEYS[1]) == 1 then return {CODE_IDEMPOTENCY_CONFLICT, ARGV[1]} end

-- What every step reads and writes (record-step.lua) goes first, in this order, then what every
-- slice's transitions read (transition-task.lua): a hash this small is a listpack, where each field
-- is found by scanning from the start, so a field placed last costs every step a walk past the
-- whole record (docs/ARCHITECTURE.md, "Throughput: what one step costs").
local FRONT_FIELDS = {'status', 'attempt', 'tenantId', 'id', 'totalUnits', 'inFlight', 'contextWriter',
  'contextWriterSeq', 'contextVersion', 'completedUnits', 'actionsRecorded', 'actionsRecordedAt',
  'progressEventAt', 'deadlineIndexedAt', 'consecutiveErrors', 'lastHeartbeatAt', 'updatedAt', 'currentStep', 'spentUsd', 'createdAt',
  'sliceCount', 'statusReason', 'codeVersion'}

local fields = cjson.decode(ARGV[2])
local flat, placed = {}, {}
for _, name in ipairs(FRONT_FIELDS) do
  if fields[name] ~= nil then
    flat[#flat + 1] = name
    flat[#flat + 1] = fields[name]
    placed[name] = true
  end
end
for name, value in pairs(fields) do
  if not placed[name] then
    flat[#flat + 1] = name
    flat[#flat + 1] = value
  end
end
flat[#flat + 1] = 'requestHash'
flat[#flat + 1] = ARGV[3]
redis.call('HSET', KEYS[1], unpack(flat))

local now = tonumber(ARGV[4])
redis.call('ZADD', KEYS[2], now, ARGV[1])
redis.call('ZADD', KEYS[3], now, ARGV[1])
redis.call('ZADD', KEYS[5], tonumber(ARGV[5]), ARGV[1])
redis.call('ZADD', KEYS[6], tonumber(ARGV[6]), ARGV[1])
redis.call('ZADD', KEYS[7], tonumber(ARGV[7]), ARGV[1])

emitEvent(KEYS[4], ARGV[8], 'task.created', ARGV[1], fields['tenantId'], fields['attempt'] or '1', ARGV[4],
  'queued', '', '{}')
return {CODE_CREATED, ARGV[1]}
