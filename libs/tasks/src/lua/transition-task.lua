--[[
  The one writer path for a task's status, called only by the task lifecycle (libs/tasks/src/
  lifecycle, docs/ARCHITECTURE.md "The task lifecycle") with the operation it performs. Atomically:
  re-reads the stored status and attempt, rejects stale attempts (fencing) and transitions the
  table does not allow (terminal states are never left), then writes the status with its fields,
  bumps updatedAt, keeps the task's active clock, maintains every index and appends the matching
  event to the shard's stream.

  The active clock: time in clocked states (isClocked) adds up in activeMs; paused and
  waiting-for-a-person time does not. The expiry index holds when the task's clock runs out: for
  a clocked task the moment activeMs would reach the limit, for a task waiting on a person its
  answer deadline (humanDeadlineAt), and nothing for a paused one: a pause is never failed by the
  clock.

  KEYS[1]      task hash
  KEYS[2]      event stream of the shard
  KEYS[3]      deadline index (active tasks by heartbeat / pick-up deadline)
  KEYS[4]      verifying index
  KEYS[5]      expiry index
  KEYS[6]      user-update index
  KEYS[7..16]  the tenant's status indexes, in the order of TASK_STATUSES
  KEYS[17]     call-deadline index (tasks whose Worker reported a call in flight)
  KEYS[18]     the parent's task hash (a task without a parent: its own hash, unused)
  KEYS[19]     the parent's running children (set)
  KEYS[20]     the parent's held children (list)
  KEYS[21]     retention index (finished tasks by when they leave Redis)
  KEYS[22]     kind-version waits (hash task id -> kind@version, docs/kinds.md "Versions")

  ARGV[1]  task id
  ARGV[2]  target status
  ARGV[3]  attempt the writer acts for ("" for operator actions: stop, pause, resume, input)
  ARGV[4]  required current statuses, comma-separated ("" = any the table allows)
  ARGV[5]  now (ms)
  ARGV[6]  deadline (ms) for the deadline index when the target is an active state
  ARGV[7]  fields to set, JSON object of field -> string ("" none), composed from typed payloads
  ARGV[8]  failed-attempt entry, JSON ("" none): appended to retryHistory with the attempt, its
           provider, the Worker that ran it and what it spent; bumps attempt
  ARGV[9]  operation (below): says what the move means and which event it writes
  ARGV[10] event data, JSON object ("" = {})
  ARGV[11] event stream max length (approximate)
  ARGV[12] integer increments, JSON object of field -> n ("" none)
  ARGV[13] the active-time limit (TASK_MAX_DURATION_MS)
  ARGV[14] how long a question may wait for its answer (HUMAN_WAIT_TIMEOUT_MS)
  ARGV[15] MAX_PARALLEL_CHILDREN
  ARGV[16] statusReason ("" none: cleared); only the operations below that name one may set it
  ARGV[17] retention (ms) of the task if this move ends it: it enters the retention index at
           now + retention (docs/operations.md, "Retention and archives")

  Operations (target: event; the lifecycle method that sends it). A slice continued in place
  (continueSlice, running → running) is not one: it is written with the Worker's steps, by
  includes/continue-slice.lua in record-steps.lua.
    claim_slice        running: task.started (first slice) or task.slice_started    claimSlice
    hand_off_slice     queued: task.progress                                          handOffSlice
    claim_done         verifying: task.verifying                                      claimDone
    ask_person         waiting_on_human (human_input | unresolved_write):
                       task.waiting_on_human                                          askPerson
    await_children     waiting_on_tool (children), or queued when every child has
                       ended already: task.progress                                   awaitChildren
    pause_for_money    paused (budget | global_spend_limit): task.paused              pauseForMoney
    await_kind_version paused (kind_version_unavailable), entered in KEYS[22]: task.paused
                                                                        awaitKindVersion
    fail_attempt       retrying: task.progress                                        failAttempt
    recover            retrying: task.progress                                        recover
    fail_verification  retrying: task.progress                                        failVerification
    complete           completed: task.completed                                      complete
    requeue_for_retry  queued: task.recovered                                         requeueForRetry
    continue_after_store_full
                       queued (attempt + 1 by the increments, no retry): task.progress
                                                                        continueAfterStoreFull
    fail               failed: task.failed                                  failForLimit, giveUp
    stop               cancelled: task.cancelled                                      stop
    cancel_child       cancelled: task.cancelled                                      cancelChild
    pause              paused (user): task.paused                                     pause
    archive            paused (archived), archived = 1: task.paused                   archive
    resume             queued: task.resumed                                           resume
    answer             queued: task.resumed                                           answer
    continue_on_kind_version
                       queued, only from paused (kind_version_unavailable): task.resumed
                                                                        continueOnKindVersion
    wait_for_tenant_slot
                       queued (tenant_max_running | tenant_fair_share), from queued only: task.progress;
                       its active clock stops until a slice claims it      waitForTenantSlot
  An operation sent with another target, or a statusReason it may not set, is refused
  (INVALID_OPERATION) before anything is read.

  Children (docs/missions.md, "Child missions"). A parent parked `waiting_on_tool` with reason
  `children` is out of the deadline index (never stale); parked when all its children have
  already ended, it is queued instead. A registered child's terminal transition ends its place:
  held children of a live parent take the places freed (due now in the deadline index, so the
  Watcher's sweep publishes them), and the last child to end queues its waiting parent. A child
  shares its parent's shard and tenant, so the parent's status indexes are KEYS[7..16] too.

  Returns {code, status, attempt, due, from}: due is a JSON array of {taskId, attempt, slice} whose
  slice may be published now (children released, a parent queued); from is the status the move
  left (the lifecycle gives a running place back when it left queued or running). APPLIED · NOT_FOUND ·
  NOT_ALLOWED (the table forbids it) · STALE_ATTEMPT (fenced) · STATUS_MISMATCH (current status not
  among the required ones) · INVALID_OPERATION (the operation does not fit the target or reason)
]]
--- @include "fence"
--- @include "statuses"
--- @include "event"

-- Every move the table allows, as " from>to " in one string searched as plain text: a table of
-- tables would be built again on every call (codes.lua), and two transitions run every slice.
local ALLOWED = ' queued>running queued>paused queued>cancelled queued>retrying queued>failed'
  .. ' running>queued running>waiting_on_tool running>waiting_on_human running>verifying running>paused'
  .. ' running>cancelled running>retrying running>failed'
  .. ' waiting_on_tool>running waiting_on_tool>queued waiting_on_tool>waiting_on_human'
  .. ' waiting_on_tool>verifying waiting_on_tool>paused waiting_on_tool>cancelled waiting_on_tool>retrying'
  .. ' waiting_on_tool>failed'
  .. ' waiting_on_human>queued waiting_on_human>paused waiting_on_human>cancelled waiting_on_human>failed'
  .. ' paused>queued paused>cancelled paused>failed'
  .. ' verifying>completed verifying>retrying verifying>failed verifying>cancelled'
  .. ' retrying>queued retrying>failed retrying>cancelled retrying>paused '
local function allowed(from, to)
  return string.find(ALLOWED, ' ' .. from .. '>' .. to .. ' ', 1, true) ~= nil
end
-- Each operation's target, and the statusReasons an operation may set, searched the same way.
local OPERATIONS = ' claim_slice>running hand_off_slice>queued claim_done>verifying'
  .. ' ask_person>waiting_on_human await_children>waiting_on_tool pause_for_money>paused'
  .. ' fail_attempt>retrying recover>retrying fail_verification>retrying complete>completed'
  .. ' requeue_for_retry>queued continue_after_store_full>queued fail>failed stop>cancelled cancel_child>cancelled pause>paused'
  .. ' archive>paused resume>queued answer>queued'
  .. ' await_kind_version>paused continue_on_kind_version>queued '
  .. ' wait_for_tenant_slot>queued '
local REASONS = ' ask_person:human_input ask_person:unresolved_write await_children:children'
  .. ' pause_for_money:budget pause_for_money:global_spend_limit pause:user archive:archived'
  .. ' await_kind_version:kind_version_unavailable '
  .. ' pause_for_money:tenant_daily_budget wait_for_tenant_slot:tenant_max_running'
  .. ' wait_for_tenant_slot:tenant_fair_share '
local function fits(operation, to, reason)
  if not string.find(OPERATIONS, ' ' .. operation .. '>' .. to .. ' ', 1, true) then return false end
  -- An operation that names reasons always sets one; the others never do.
  if reason == '' then return string.find(REASONS, ' ' .. operation .. ':', 1, true) == nil end
  return string.find(REASONS, ' ' .. operation .. ':' .. reason .. ' ', 1, true) ~= nil
end
-- A status's place in KEYS[7..16]: the order of TASK_STATUSES in task-status.ts.
local function statusIndex(status)
  if status == 'queued' then return 1 elseif status == 'running' then return 2
  elseif status == 'waiting_on_tool' then return 3 elseif status == 'waiting_on_human' then return 4
  elseif status == 'paused' then return 5 elseif status == 'verifying' then return 6
  elseif status == 'retrying' then return 7 elseif status == 'completed' then return 8
  elseif status == 'failed' then return 9 elseif status == 'cancelled' then return 10 end
  return nil
end

-- Only what every transition needs is read up front; the rest where its branch needs it. A task
-- hash is a listpack, searched from its start for every field named (create-task.lua).
local operation, to, reason = ARGV[9], ARGV[2], ARGV[16]
if not fits(operation, to, reason) then return {CODE_INVALID_OPERATION, '', 0, '[]'} end
local stored = redis.call('HMGET', KEYS[1], 'status', 'attempt', 'tenantId', 'createdAt', 'startedAt', 'statusReason')
local from, attempt = stored[1], tonumber(stored[2])
if not from then return {CODE_NOT_FOUND, '', 0, '[]'} end
local fields = {}
if ARGV[7] ~= '' then fields = cjson.decode(ARGV[7]) end
local awaitingChildren = operation == 'await_children'
local children = awaitingChildren and redis.call('HMGET', KEYS[1], 'childrenTotal', 'childrenDone') or {}
if awaitingChildren and (tonumber(children[2] or '0') or 0) >= (tonumber(children[1] or '0') or 0) then
  -- Every child has ended already: the parent goes on at once.
  to = 'queued'
  awaitingChildren = false
  reason = ''
end

-- Operator actions (stop, pause, resume, input) act for no attempt and are never fenced.
if ARGV[3] ~= '' then
  local refusal = fenceRefusal(from, attempt, ARGV[3], nil)
  if refusal then return {refusal, from, attempt, '[]'} end
end
if ARGV[4] ~= '' then
  local required = false
  for status in string.gmatch(ARGV[4], '[^,]+') do
    if status == from then required = true end
  end
  if not required then return {CODE_STATUS_MISMATCH, from, attempt, '[]'} end
end
-- Waiting for one of the tenant's running places is the one move from queued to queued.
local waitsForSlot = operation == 'wait_for_tenant_slot'
if waitsForSlot and from ~= 'queued' then return {CODE_NOT_ALLOWED, from, attempt, '[]'} end
if not waitsForSlot and not allowed(from, to) then
  return {CODE_NOT_ALLOWED, from, attempt, '[]'}
end
-- Only a task paused for its kind's version continues when a Worker that runs it appears.
if operation == 'continue_on_kind_version' and stored[6] ~= 'kind_version_unavailable' then
  return {CODE_STATUS_MISMATCH, from, attempt, '[]'}
end
-- A task queued for its tenant's place is not clocked: its wait is not its work.
local fromClocked = isClocked(from)
  and not (from == 'queued' and (stored[6] == 'tenant_max_running' or stored[6] == 'tenant_fair_share'))
local toClocked = isClocked(to) and not waitsForSlot

local now = ARGV[5]
local nowMs = tonumber(now)
local id = ARGV[1]
local updates = {'status', to, 'updatedAt', now, 'statusReason', reason}
if operation == 'archive' then
  updates[#updates + 1] = 'archived'
  updates[#updates + 1] = '1'
end
if not isWorking(to) or awaitingChildren then
  updates[#updates + 1] = 'inFlight'
  updates[#updates + 1] = ''
  redis.call('ZREM', KEYS[17], id)
end
local clock = {}
if fromClocked ~= toClocked then
  clock = redis.call('HMGET', KEYS[1], 'activeMs', 'activeSince')
end
local activeMs = tonumber(clock[1] or '0') or 0
if fromClocked and not toClocked then
  local since = tonumber(clock[2] or '')
  if since then activeMs = activeMs + math.max(0, nowMs - since) end
  updates[#updates + 1] = 'activeMs'
  updates[#updates + 1] = tostring(activeMs)
  updates[#updates + 1] = 'activeSince'
  updates[#updates + 1] = ''
elseif toClocked and not fromClocked then
  updates[#updates + 1] = 'activeSince'
  updates[#updates + 1] = now
  redis.call('ZADD', KEYS[5], nowMs + math.max(0, tonumber(ARGV[13]) - activeMs), id)
end
if to == 'waiting_on_human' then
  local answerBy = nowMs + tonumber(ARGV[14])
  updates[#updates + 1] = 'humanDeadlineAt'
  updates[#updates + 1] = tostring(answerBy)
  redis.call('ZADD', KEYS[5], answerBy, id)
elseif from == 'waiting_on_human' then
  updates[#updates + 1] = 'humanDeadlineAt'
  updates[#updates + 1] = ''
end
if to == 'paused' or waitsForSlot then redis.call('ZREM', KEYS[5], id) end
if operation == 'await_kind_version' then
  local version = redis.call('HMGET', KEYS[1], 'kind', 'kindVersion')
  redis.call('HSET', KEYS[22], id, (version[1] or '') .. '@' .. (version[2] or '1'))
elseif from == 'paused' then
  redis.call('HDEL', KEYS[22], id)
end
for name, value in pairs(fields) do
  updates[#updates + 1] = name
  updates[#updates + 1] = value
end
if ARGV[8] ~= '' then
  local run = redis.call('HMGET', KEYS[1], 'retryHistory', 'spentUsd', 'attemptSpentFrom', 'provider', 'workerId')
  local history = cjson.decode(run[1] or '[]')
  local entry = cjson.decode(ARGV[8])
  entry['attempt'] = attempt
  entry['at'] = nowMs
  entry['provider'] = run[4] or cjson.null
  entry['workerId'] = run[5] or cjson.null
  local spent = (tonumber(run[2] or '0') or 0) - (tonumber(run[3] or '0') or 0)
  entry['costUsd'] = math.floor(math.max(0, spent) * 1e6 + 0.5) / 1e6
  history[#history + 1] = entry
  attempt = attempt + 1
  updates[#updates + 1] = 'retryHistory'
  updates[#updates + 1] = cjson.encode(history)
  updates[#updates + 1] = 'attempt'
  updates[#updates + 1] = tostring(attempt)
end
if ARGV[12] ~= '' then
  for name, delta in pairs(cjson.decode(ARGV[12])) do
    local value = redis.call('HINCRBY', KEYS[1], name, delta)
    if name == 'attempt' then attempt = value end
  end
end
local firstStart = to == 'running' and not stored[5]
if firstStart then
  updates[#updates + 1] = 'startedAt'
  updates[#updates + 1] = now
end
if isTerminal(to) then
  updates[#updates + 1] = 'finishedAt'
  updates[#updates + 1] = now
end
redis.call('HSET', KEYS[1], unpack(updates))

if isActive(to) and not awaitingChildren then redis.call('ZADD', KEYS[3], tonumber(ARGV[6]), id) else redis.call('ZREM', KEYS[3], id) end
-- Only a verifying task is in the verifying index (touch-index.lua moves it only while it is).
if to == 'verifying' then redis.call('ZADD', KEYS[4], tonumber(now), id)
elseif from == 'verifying' then redis.call('ZREM', KEYS[4], id) end
if isTerminal(to) then
  redis.call('ZREM', KEYS[5], id)
  redis.call('ZREM', KEYS[6], id)
  redis.call('ZADD', KEYS[21], nowMs + tonumber(ARGV[17]), id)
end
-- A move to the same status leaves its index as it is (its score is the creation time).
if from ~= to then
  redis.call('ZREM', KEYS[6 + statusIndex(from)], id)
  redis.call('ZADD', KEYS[6 + statusIndex(to)], tonumber(stored[4]), id)
end

local eventType
if operation == 'requeue_for_retry' then eventType = 'task.recovered'
elseif operation == 'resume' or operation == 'answer' or operation == 'continue_on_kind_version' then
  eventType = 'task.resumed'
elseif to == 'queued' or to == 'waiting_on_tool' or to == 'retrying' then eventType = 'task.progress'
elseif to == 'running' then
  if firstStart then eventType = 'task.started' else eventType = 'task.slice_started' end
else eventType = 'task.' .. to end
local data = ARGV[10]
if data == '' then data = '{}' end
emitEvent(KEYS[2], ARGV[11], eventType, id, stored[3], attempt, now, to, from, data)

local due = {}
local child = isTerminal(to) and redis.call('HMGET', KEYS[1], 'parentId', 'childRegistered') or {}
if isTerminal(to) and child[1] and child[1] ~= '' and child[2] == '1' then
  if redis.call('SREM', KEYS[19], id) == 0 then redis.call('LREM', KEYS[20], 0, id) end
  local done = redis.call('HINCRBY', KEYS[18], 'childrenDone', 1)
  local parent = redis.call('HMGET', KEYS[18], 'id', 'status', 'statusReason', 'childrenTotal', 'createdAt',
    'attempt', 'sliceCount')
  if parent[2] and not isTerminal(parent[2]) then
    while redis.call('SCARD', KEYS[19]) < tonumber(ARGV[15]) do
      local released = redis.call('LPOP', KEYS[20])
      if not released then break end
      redis.call('SADD', KEYS[19], released)
      redis.call('ZADD', KEYS[3], nowMs, released)
      due[#due + 1] = {taskId = released, attempt = 1, slice = 1}
    end
  end
  redis.call('HSET', KEYS[18], 'childrenRunning', redis.call('SCARD', KEYS[19]))
  if parent[2] == 'waiting_on_tool' and parent[3] == 'children' and done >= tonumber(parent[4] or '0') then
    local parentId = parent[1]
    redis.call('HSET', KEYS[18], 'status', 'queued', 'statusReason', '', 'updatedAt', now)
    redis.call('ZREM', KEYS[9], parentId)
    redis.call('ZADD', KEYS[7], tonumber(parent[5]), parentId)
    redis.call('ZADD', KEYS[3], nowMs, parentId)
    emitEvent(KEYS[2], ARGV[11], 'task.progress', parentId, stored[3], tonumber(parent[6]), now, 'queued',
      'waiting_on_tool', '{"children":"ended"}')
    due[#due + 1] = {taskId = parentId, attempt = tonumber(parent[6]), slice = (tonumber(parent[7]) or 0) + 1}
  end
end
local dueJson = '[]'
if #due > 0 then dueJson = cjson.encode(due) end
return {CODE_APPLIED, to, attempt, dueJson, from}
