--[[
  recordStep(K, A): one step, as record-steps.lua runs it for each step of a batch (K: the
  step's ten keys, A: its arguments).

  Everything one tool step leaves behind, in one round trip and atomically: the action-log entry,
  the logical step marked done, its saved output, the write journal's result, a finding, the
  heartbeat with progress, the deadline index, and the task.progress (and task.message) events.
  Fenced: a writer whose attempt is not the task's, or a task no longer running, changes nothing.

  K[1] task hash
  K[2] action log (list)
  K[3] done logical steps (set)
  K[4] saved outputs (hash: step key -> JSON)
  K[5] write journal (hash: step key -> JSON)
  K[6] findings (list)
  K[7] event stream of the shard
  K[8] deadline index
  K[9] call-deadline index (the step ends the call a heartbeat may have reported in flight)
  K[10] artifact list (list of JSON entries, oldest first; docs/api.md, "Artifacts")

  A[1]  attempt of the writer
  A[2]  now (ms)
  A[3]  new heartbeat deadline (ms)
  A[4]  action entry, JSON (its `step` is assigned here: position in the log)
  A[5]  logical step key ("" none)
  A[6]  "1" if the call succeeded
  A[7]  output to save, JSON ("" none)
  A[8]  write-journal result entry, JSON ("" none)
  A[9]  finding, JSON ("" none)
  A[10] current step, human-readable
  A[11] user message event data, JSON ("" none)
  A[12] event stream max length (approximate)
  A[13] spend to add in USD ("" none)
  A[14] id of the slice run recording the step (contextWriter: see load-slice.lua)
  A[15] reservation to release in USD ("" none): reserve-task-spend.lua's grant for the model
           call whose cost A[13] records
  A[16] the step's number within its slice run (1, 2, …; "" none): a call that comes again
           from the same run with a number already recorded — a client retrying after a Redis
           Cluster failover lost the reply of a script that did run — changes nothing and gets
           the task's current figures back
  A[17] least time between two task.progress events of the task (ms; 0: one per step)
  A[18] slack of the deadline index (ms): the index is moved only once the deadline it holds
           is earlier than A[3], and then to A[3] + slack, so a run of steps moves it once per
           slack, not once per step; it is never earlier than the true deadline by more than the slack
           a heartbeat or transition between may leave (the Watcher defers a healthy task it finds)
  A[19..] artifact entries of the step, JSON each, without their `step` (assigned here, the
           action's): appended to the artifact list, one per artifact id — the same image twice in
           one result is listed once. A repeat of a recorded call (A[16]) appends nothing.

  A finding also appends a task.finding event (its data is the finding).

  Returns {code, status, attempt, step, completedUnits, consecutiveErrors, contextVersion,
  steerCount}: APPLIED · NOT_FOUND · STALE_ATTEMPT · NOT_ACTIVE (task not running). steerCount is
  how many instructions the task was given (steer-task.lua): read with the rest of the step's
  fields, it tells a running slice of a new one at no extra command (docs/api.md, "Steering").
]]
--- @include "fence"
--- @include "working"
--- @include "event"

local function recordStep(K, A)
  local stored = redis.call('HMGET', K[1], 'status', 'attempt', 'tenantId', 'id', 'totalUnits', 'inFlight',
    'contextWriter', 'contextWriterSeq', 'contextVersion', 'completedUnits', 'actionsRecorded',
    'actionsRecordedAt', 'progressEventAt', 'deadlineIndexedAt', 'steerCount')
  local status, attempt = stored[1], tonumber(stored[2])
  local refusal = fenceRefusal(status, attempt, A[1], isWorking)
  if refusal then return {refusal, status or '', attempt or 0, 0, 0, 0, 0} end
  if A[16] ~= '' and stored[7] == A[14] and tonumber(stored[8] or '0') >= tonumber(A[16]) then
    local now = redis.call('HMGET', K[1], 'completedUnits', 'consecutiveErrors', 'contextVersion')
    return {CODE_APPLIED, status, attempt, redis.call('LLEN', K[2]), tonumber(now[1] or '0'),
      tonumber(now[2] or '0'), tonumber(now[3] or '0'), tonumber(stored[15] or '0') or 0}
  end

  -- The log's length, as this script wrote it beside the context version of the time: the length
  -- is current while the version is, since whatever else changes the version may also have appended
  -- (a record-step.lua of an older release) or must be assumed to (reconcile-journal.lua); then the
  -- log is counted. One LLEN fewer on every step.
  local logged = tonumber(stored[11] or '')
  if not logged or stored[12] ~= stored[9] then logged = redis.call('LLEN', K[2]) end
  local step = logged + 1
  -- Spliced, not re-encoded: a cjson round trip would turn [] into {} and round long numbers.
  redis.call('RPUSH', K[2], '{"step":' .. step .. ',' .. string.sub(A[4], 2))
  local listed = {}
  for i = 19, #A do
    local id = cjson.decode(A[i]).id
    if id and not listed[id] then
      listed[id] = true
      redis.call('RPUSH', K[10], '{"step":' .. step .. ',' .. string.sub(A[i], 2))
    end
  end

  -- completedUnits is the done set's size: every script that adds to the set writes it (this one,
  -- reconcile-journal.lua, resolve-unresolved-write.lua, in every release), so it is read, not
  -- recounted; a task created without a unit count has it empty until its first step.
  local completed = tonumber(stored[10] or '')
  local key, succeeded = A[5], A[6] == '1'
  if key ~= '' and succeeded then
    local added = redis.call('SADD', K[3], key)
    if completed then completed = completed + added end
    if A[7] ~= '' then redis.call('HSET', K[4], key, A[7]) end
  end
  if not completed then completed = redis.call('SCARD', K[3]) end
  if key ~= '' and A[8] ~= '' then redis.call('HSET', K[5], key, A[8]) end
  if A[9] ~= '' then redis.call('RPUSH', K[6], A[9]) end

  local errors = 0
  if not succeeded then errors = redis.call('HINCRBY', K[1], 'consecutiveErrors', 1) end
  -- With contextWriter and the log's length, tells a worker whether the context it holds from this
  -- task's previous slice is still current (load-slice.lua). Read above and written here with the
  -- rest: one command fewer than an HINCRBY on every step.
  local contextVersion = (tonumber(stored[9] or '0') or 0) + 1
  -- The progress event is due once the interval since the last one has passed, and on the step that
  -- completes the last unit (a follower's bar ends full); the time is written with the step's fields.
  local total, lastEvent = tonumber(stored[5] or ''), tonumber(stored[13] or '')
  local progressDue = not lastEvent or tonumber(A[2]) - lastEvent >= tonumber(A[17])
    or (total ~= nil and completed >= total and (tonumber(stored[10] or '') or -1) < total)
  local progressEventAt = stored[13] or ''
  if progressDue then progressEventAt = A[2] end
  local deadline, indexedAt = tonumber(A[3]), tonumber(stored[14] or '')
  local moveDeadline = not indexedAt or indexedAt < deadline
  if moveDeadline then indexedAt = deadline + tonumber(A[18]) end
  redis.call('HSET', K[1], 'lastHeartbeatAt', A[2], 'updatedAt', A[2], 'currentStep', A[10],
    'completedUnits', completed, 'consecutiveErrors', errors, 'contextWriter', A[14],
    'contextWriterSeq', A[16], 'contextVersion', contextVersion, 'actionsRecorded', step,
    'actionsRecordedAt', contextVersion, 'progressEventAt', progressEventAt, 'deadlineIndexedAt', indexedAt)
  if A[13] ~= '' then redis.call('HINCRBYFLOAT', K[1], 'spentUsd', A[13]) end
  if A[15] ~= '' then redis.call('HINCRBYFLOAT', K[1], 'reservedUsd', '-' .. A[15]) end
  if stored[6] and stored[6] ~= '' then
    redis.call('HSET', K[1], 'inFlight', '')
    redis.call('ZREM', K[9], stored[4])
  end
  if moveDeadline then redis.call('ZADD', K[8], indexedAt, stored[4]) end

  if progressDue then
    local progress = cjson.encode({currentStep = A[10], completedUnits = completed, totalUnits = total,
      step = step})
    emitEvent(K[7], A[12], 'task.progress', stored[4], stored[3], attempt, A[2], status, status, progress)
  end
  if A[9] ~= '' then
    emitEvent(K[7], A[12], 'task.finding', stored[4], stored[3], attempt, A[2], status, status, A[9])
  end
  if A[11] ~= '' then
    emitEvent(K[7], A[12], 'task.message', stored[4], stored[3], attempt, A[2], status, status, A[11])
  end
  return {CODE_APPLIED, status, attempt, step, completed, errors, contextVersion, tonumber(stored[15] or '0') or 0}
end
