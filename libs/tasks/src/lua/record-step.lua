--[[
  Everything one tool step leaves behind, in one round trip and atomically: the action-log entry,
  the logical step marked done, its saved output, the write journal's result, a finding, the
  heartbeat with progress, the deadline index, and the task.progress (and task.message) events.
  Fenced: a writer whose attempt is not the task's, or a task no longer running, changes nothing.

  KEYS[1] task hash
  KEYS[2] action log (list)
  KEYS[3] done logical steps (set)
  KEYS[4] saved outputs (hash: step key -> JSON)
  KEYS[5] write journal (hash: step key -> JSON)
  KEYS[6] findings (list)
  KEYS[7] event stream of the shard
  KEYS[8] deadline index
  KEYS[9] call-deadline index (the step ends the call a heartbeat may have reported in flight)
  KEYS[10] artifact list (list of JSON entries, oldest first; docs/api.md, "Artifacts")

  ARGV[1]  attempt of the writer
  ARGV[2]  now (ms)
  ARGV[3]  new heartbeat deadline (ms)
  ARGV[4]  action entry, JSON (its `step` is assigned here: position in the log)
  ARGV[5]  logical step key ("" none)
  ARGV[6]  "1" if the call succeeded
  ARGV[7]  output to save, JSON ("" none)
  ARGV[8]  write-journal result entry, JSON ("" none)
  ARGV[9]  finding, JSON ("" none)
  ARGV[10] current step, human-readable
  ARGV[11] user message event data, JSON ("" none)
  ARGV[12] event stream max length (approximate)
  ARGV[13] spend to add in USD ("" none)
  ARGV[14] id of the slice run recording the step (contextWriter: see load-slice.lua)
  ARGV[15] reservation to release in USD ("" none): reserve-task-spend.lua's grant for the model
           call whose cost ARGV[13] records
  ARGV[16] the step's number within its slice run (1, 2, …; "" none): a call that comes again
           from the same run with a number already recorded — a client retrying after a Redis
           Cluster failover lost the reply of a script that did run — changes nothing and gets
           the task's current figures back
  ARGV[17] least time between two task.progress events of the task (ms; 0: one per step)
  ARGV[18] slack of the deadline index (ms): the index is moved only once the deadline it holds
           is earlier than ARGV[3], and then to ARGV[3] + slack, so a run of steps moves it once per
           slack, not once per step; it is never earlier than the true deadline by more than the slack
           a heartbeat or transition between may leave (the Watcher defers a healthy task it finds)
  ARGV[19..] artifact entries of the step, JSON each, without their `step` (assigned here, the
           action's): appended to the artifact list, one per artifact id — the same image twice in
           one result is listed once. A repeat of a recorded call (ARGV[16]) appends nothing.

  A finding also appends a task.finding event (its data is the finding).

  Returns {code, status, attempt, step, completedUnits, consecutiveErrors, contextVersion,
  steerCount}: APPLIED · NOT_FOUND · STALE_ATTEMPT · NOT_ACTIVE (task not running). steerCount is
  how many instructions the task was given (steer-task.lua): read with the rest of the step's
  fields, it tells a running slice of a new one at no extra command (docs/api.md, "Steering").
]]
--- @include "fence"
--- @include "working"
--- @include "event"

local stored = redis.call('HMGET', KEYS[1], 'status', 'attempt', 'tenantId', 'id', 'totalUnits', 'inFlight',
  'contextWriter', 'contextWriterSeq', 'contextVersion', 'completedUnits', 'actionsRecorded',
  'actionsRecordedAt', 'progressEventAt', 'deadlineIndexedAt', 'steerCount')
local status, attempt = stored[1], tonumber(stored[2])
local refusal = fenceRefusal(status, attempt, ARGV[1], isWorking)
if refusal then return {refusal, status or '', attempt or 0, 0, 0, 0, 0} end
if ARGV[16] ~= '' and stored[7] == ARGV[14] and tonumber(stored[8] or '0') >= tonumber(ARGV[16]) then
  local now = redis.call('HMGET', KEYS[1], 'completedUnits', 'consecutiveErrors', 'contextVersion')
  return {CODE_APPLIED, status, attempt, redis.call('LLEN', KEYS[2]), tonumber(now[1] or '0'),
    tonumber(now[2] or '0'), tonumber(now[3] or '0'), tonumber(stored[15] or '0') or 0}
end

-- The log's length, as this script wrote it beside the context version of the time: the length
-- is current while the version is, since whatever else changes the version may also have appended
-- (a record-step.lua of an older release) or must be assumed to (reconcile-journal.lua); then the
-- log is counted. One LLEN fewer on every step.
local logged = tonumber(stored[11] or '')
if not logged or stored[12] ~= stored[9] then logged = redis.call('LLEN', KEYS[2]) end
local step = logged + 1
-- Spliced, not re-encoded: a cjson round trip would turn [] into {} and round long numbers.
redis.call('RPUSH', KEYS[2], '{"step":' .. step .. ',' .. string.sub(ARGV[4], 2))
local listed = {}
for i = 19, #ARGV do
  local id = cjson.decode(ARGV[i]).id
  if id and not listed[id] then
    listed[id] = true
    redis.call('RPUSH', KEYS[10], '{"step":' .. step .. ',' .. string.sub(ARGV[i], 2))
  end
end

-- completedUnits is the done set's size: every script that adds to the set writes it (this one,
-- reconcile-journal.lua, resolve-unresolved-write.lua, in every release), so it is read, not
-- recounted; a task created without a unit count has it empty until its first step.
local completed = tonumber(stored[10] or '')
local key, succeeded = ARGV[5], ARGV[6] == '1'
if key ~= '' and succeeded then
  local added = redis.call('SADD', KEYS[3], key)
  if completed then completed = completed + added end
  if ARGV[7] ~= '' then redis.call('HSET', KEYS[4], key, ARGV[7]) end
end
if not completed then completed = redis.call('SCARD', KEYS[3]) end
if key ~= '' and ARGV[8] ~= '' then redis.call('HSET', KEYS[5], key, ARGV[8]) end
if ARGV[9] ~= '' then redis.call('RPUSH', KEYS[6], ARGV[9]) end

local errors = 0
if not succeeded then errors = redis.call('HINCRBY', KEYS[1], 'consecutiveErrors', 1) end
-- With contextWriter and the log's length, tells a worker whether the context it holds from this
-- task's previous slice is still current (load-slice.lua). Read above and written here with the
-- rest: one command fewer than an HINCRBY on every step.
local contextVersion = (tonumber(stored[9] or '0') or 0) + 1
-- The progress event is due once the interval since the last one has passed, and on the step that
-- completes the last unit (a follower's bar ends full); the time is written with the step's fields.
local total, lastEvent = tonumber(stored[5] or ''), tonumber(stored[13] or '')
local progressDue = not lastEvent or tonumber(ARGV[2]) - lastEvent >= tonumber(ARGV[17])
  or (total ~= nil and completed >= total and (tonumber(stored[10] or '') or -1) < total)
local progressEventAt = stored[13] or ''
if progressDue then progressEventAt = ARGV[2] end
local deadline, indexedAt = tonumber(ARGV[3]), tonumber(stored[14] or '')
local moveDeadline = not indexedAt or indexedAt < deadline
if moveDeadline then indexedAt = deadline + tonumber(ARGV[18]) end
redis.call('HSET', KEYS[1], 'lastHeartbeatAt', ARGV[2], 'updatedAt', ARGV[2], 'currentStep', ARGV[10],
  'completedUnits', completed, 'consecutiveErrors', errors, 'contextWriter', ARGV[14],
  'contextWriterSeq', ARGV[16], 'contextVersion', contextVersion, 'actionsRecorded', step,
  'actionsRecordedAt', contextVersion, 'progressEventAt', progressEventAt, 'deadlineIndexedAt', indexedAt)
if ARGV[13] ~= '' then redis.call('HINCRBYFLOAT', KEYS[1], 'spentUsd', ARGV[13]) end
if ARGV[15] ~= '' then redis.call('HINCRBYFLOAT', KEYS[1], 'reservedUsd', '-' .. ARGV[15]) end
if stored[6] and stored[6] ~= '' then
  redis.call('HSET', KEYS[1], 'inFlight', '')
  redis.call('ZREM', KEYS[9], stored[4])
end
if moveDeadline then redis.call('ZADD', KEYS[8], indexedAt, stored[4]) end

if progressDue then
  local progress = cjson.encode({currentStep = ARGV[10], completedUnits = completed, totalUnits = total,
    step = step})
  emitEvent(KEYS[7], ARGV[12], 'task.progress', stored[4], stored[3], attempt, ARGV[2], status, status, progress)
end
if ARGV[9] ~= '' then
  emitEvent(KEYS[7], ARGV[12], 'task.finding', stored[4], stored[3], attempt, ARGV[2], status, status, ARGV[9])
end
if ARGV[11] ~= '' then
  emitEvent(KEYS[7], ARGV[12], 'task.message', stored[4], stored[3], attempt, ARGV[2], status, status, ARGV[11])
end
return {CODE_APPLIED, status, attempt, step, completed, errors, contextVersion, tonumber(stored[15] or '0') or 0}
