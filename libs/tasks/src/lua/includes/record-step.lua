--[[
  recordStep(shared, k, a, n): one step of a record-steps.lua call. Everything one tool step
  leaves behind, atomically: the action-log entry, the logical step marked done, its saved output,
  the write journal's result, a finding, the heartbeat with progress, the deadline index, and the
  task.progress (and task.message) events. Fenced: a writer whose attempt is not the task's, or a
  task no longer running, changes nothing.

  `shared`: what every step of the call shares (record-steps.lua): the shard's event stream,
  deadline index and call-deadline index (the step ends the call a heartbeat may have reported in
  flight), the stream's max length, the progress interval and the deadline slack.

  The step's keys are KEYS[k+1..k+7]:
  +1 task hash · +2 action log (list) · +3 done logical steps (set) · +4 saved outputs (hash: step
  key -> JSON) · +5 write journal (hash: step key -> JSON) · +6 findings (list) · +7 artifact list
  (list of JSON entries, oldest first; docs/api.md, "Artifacts")

  Its n arguments are ARGV[a+1..a+n]:
  +1  attempt of the writer
  +2  now (ms)
  +3  new heartbeat deadline (ms)
  +4  action entry, JSON (its `step` is assigned here: position in the log)
  +5  logical step key ("" none)
  +6  "1" if the call succeeded
  +7  output to save, JSON ("" none)
  +8  write-journal result entry, JSON ("" none)
  +9  finding, JSON ("" none)
  +10 current step, human-readable
  +11 user message event data, JSON ("" none)
  +12 spend to add in USD ("" none)
  +13 id of the slice run recording the step (contextWriter: see load-slice.lua)
  +14 reservation to release in USD ("" none): reserve-task-spend.lua's grant for the model call
      whose cost +12 records
  +15 the step's number within its slice run (1, 2, …; "" none): a call that comes again from the
      same run with a number already recorded — a client retrying after a Redis Cluster failover
      lost the reply of a script that did run — changes nothing and gets the task's current
      figures back
  +16.. artifact entries of the step, JSON each, without their `step` (assigned here, the
      action's): appended to the artifact list, one per artifact id — the same image twice in one
      result is listed once. A repeat of a recorded call (+15) appends nothing.

  The progress event is due once `shared.progressIntervalMs` has passed since the task's last one
  (0: on every step), and on the step that completes the last unit. The deadline index is moved
  only once the deadline it holds is earlier than the new one, and then to it + `shared.slackMs`, so
  a run of steps moves it once per slack, not once per step; it is never earlier than the true
  deadline by more than the slack a heartbeat or transition between may leave (the Watcher defers a
  healthy task it finds). A finding also appends a task.finding event (its data is the finding).

  Returns {code, status, attempt, step, completedUnits, consecutiveErrors, contextVersion,
  steerCount}: APPLIED · NOT_FOUND · STALE_ATTEMPT · NOT_ACTIVE (task not running). steerCount is
  how many instructions the task was given (steer-task.lua): read with the rest of the step's
  fields, it tells a running slice of a new one at no extra command (docs/api.md, "Steering").
]]
--- @include "fence"
--- @include "working"
--- @include "event"

-- Named locals rather than a table of the step's keys and arguments: a table per step is an
-- allocation and a copy of every value, on the script that runs most.
local function recordStep(shared, k, a, n)
  local taskKey, actionsKey, doneKey, outputsKey = KEYS[k + 1], KEYS[k + 2], KEYS[k + 3], KEYS[k + 4]
  local journalKey, findingsKey, artifactsKey = KEYS[k + 5], KEYS[k + 6], KEYS[k + 7]
  local writerAttempt, now, deadlineArg, action = ARGV[a + 1], ARGV[a + 2], ARGV[a + 3], ARGV[a + 4]
  local key, succeeded, output, journal = ARGV[a + 5], ARGV[a + 6] == '1', ARGV[a + 7], ARGV[a + 8]
  local finding, currentStep, message, spent = ARGV[a + 9], ARGV[a + 10], ARGV[a + 11], ARGV[a + 12]
  local writer, release, writerSeq = ARGV[a + 13], ARGV[a + 14], ARGV[a + 15]

  local stored = redis.call('HMGET', taskKey, 'status', 'attempt', 'tenantId', 'id', 'totalUnits', 'inFlight',
    'contextWriter', 'contextWriterSeq', 'contextVersion', 'completedUnits', 'actionsRecorded',
    'actionsRecordedAt', 'progressEventAt', 'deadlineIndexedAt', 'consecutiveErrors', 'steerCount')
  local status, attempt = stored[1], tonumber(stored[2])
  local refusal = fenceRefusal(status, attempt, writerAttempt, isWorking)
  if refusal then return {refusal, status or '', attempt or 0, 0, 0, 0, 0} end
  local steerCount = tonumber(stored[16] or '0') or 0
  if writerSeq ~= '' and stored[7] == writer and tonumber(stored[8] or '0') >= tonumber(writerSeq) then
    return {CODE_APPLIED, status, attempt, redis.call('LLEN', actionsKey), tonumber(stored[10] or '0'),
      tonumber(stored[15] or '0'), tonumber(stored[9] or '0'), steerCount}
  end

  -- The log's length, as this script wrote it beside the context version of the time: the length
  -- is current while the version is, since whatever else changes the version may also have appended
  -- (a record-step.lua of an older release) or must be assumed to (reconcile-journal.lua); then the
  -- log is counted. One LLEN fewer on every step.
  local logged = tonumber(stored[11] or '')
  if not logged or stored[12] ~= stored[9] then logged = redis.call('LLEN', actionsKey) end
  local step = logged + 1
  -- Spliced, not re-encoded: a cjson round trip would turn [] into {} and round long numbers.
  redis.call('RPUSH', actionsKey, '{"step":' .. step .. ',' .. string.sub(action, 2))
  local listed = {}
  for i = a + 16, a + n do
    local id = cjson.decode(ARGV[i]).id
    if id and not listed[id] then
      listed[id] = true
      redis.call('RPUSH', artifactsKey, '{"step":' .. step .. ',' .. string.sub(ARGV[i], 2))
    end
  end

  -- completedUnits is the done set's size: every script that adds to the set writes it (this one,
  -- reconcile-journal.lua, resolve-unresolved-write.lua, in every release), so it is read, not
  -- recounted; a task created without a unit count has it empty until its first step.
  local completed = tonumber(stored[10] or '')
  if key ~= '' and succeeded then
    local added = redis.call('SADD', doneKey, key)
    if completed then completed = completed + added end
    if output ~= '' then redis.call('HSET', outputsKey, key, output) end
  end
  if not completed then completed = redis.call('SCARD', doneKey) end
  if key ~= '' and journal ~= '' then redis.call('HSET', journalKey, key, journal) end
  if finding ~= '' then redis.call('RPUSH', findingsKey, finding) end

  local errors = 0
  if not succeeded then errors = redis.call('HINCRBY', taskKey, 'consecutiveErrors', 1) end
  -- With contextWriter and the log's length, tells a worker whether the context it holds from this
  -- task's previous slice is still current (load-slice.lua). Read above and written here with the
  -- rest: one command fewer than an HINCRBY on every step.
  local contextVersion = (tonumber(stored[9] or '0') or 0) + 1
  local total, lastEvent = tonumber(stored[5] or ''), tonumber(stored[13] or '')
  local progressDue = not lastEvent or tonumber(now) - lastEvent >= shared.progressIntervalMs
    or (total ~= nil and completed >= total and (tonumber(stored[10] or '') or -1) < total)
  local deadline, indexedAt = tonumber(deadlineArg), tonumber(stored[14] or '')
  local moveDeadline = not indexedAt or indexedAt < deadline
  if moveDeadline then indexedAt = deadline + shared.slackMs end
  -- What changes on every step, in one HSET; the writer, the event and index times and the error
  -- count join it only on the steps that change them (a slice's first, once an interval, an error).
  -- (A failed step's count was written by its HINCRBY; a success resets a count that is not 0.)
  local errorsToReset = succeeded and (tonumber(stored[15] or '0') or 0) ~= 0
  if stored[7] == writer and not progressDue and not moveDeadline and not errorsToReset then
    redis.call('HSET', taskKey, 'lastHeartbeatAt', now, 'updatedAt', now, 'currentStep', currentStep,
      'completedUnits', completed, 'contextWriterSeq', writerSeq, 'contextVersion', contextVersion,
      'actionsRecorded', step, 'actionsRecordedAt', contextVersion)
  else
    redis.call('HSET', taskKey, 'lastHeartbeatAt', now, 'updatedAt', now, 'currentStep', currentStep,
      'completedUnits', completed, 'contextWriterSeq', writerSeq, 'contextVersion', contextVersion,
      'actionsRecorded', step, 'actionsRecordedAt', contextVersion, 'contextWriter', writer,
      'progressEventAt', progressDue and now or stored[13], 'deadlineIndexedAt', indexedAt,
      'consecutiveErrors', errors)
  end
  if moveDeadline then redis.call('ZADD', shared.deadlineIndex, indexedAt, stored[4]) end
  if spent ~= '' then redis.call('HINCRBYFLOAT', taskKey, 'spentUsd', spent) end
  if release ~= '' then redis.call('HINCRBYFLOAT', taskKey, 'reservedUsd', '-' .. release) end
  if stored[6] and stored[6] ~= '' then
    redis.call('HSET', taskKey, 'inFlight', '')
    redis.call('ZREM', shared.callDeadlineIndex, stored[4])
  end

  if progressDue then
    local progress = cjson.encode({currentStep = currentStep, completedUnits = completed, totalUnits = total,
      step = step})
    emitEvent(shared.events, shared.streamMaxLen, 'task.progress', stored[4], stored[3], attempt, now, status,
      status, progress)
  end
  if finding ~= '' then
    emitEvent(shared.events, shared.streamMaxLen, 'task.finding', stored[4], stored[3], attempt, now, status,
      status, finding)
  end
  if message ~= '' then
    emitEvent(shared.events, shared.streamMaxLen, 'task.message', stored[4], stored[3], attempt, now, status,
      status, message)
  end
  return {CODE_APPLIED, status, attempt, step, completed, errors, contextVersion, steerCount}
end
