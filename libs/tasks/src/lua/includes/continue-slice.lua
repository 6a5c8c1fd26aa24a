--[[
  continueSlice(shared, k, a, n): the continue_slice move as an entry of a record-steps.lua call
  (docs/ARCHITECTURE.md, "Named transitions"). A slice used its steps and the same Worker runs the
  task's next slice at once: running → running for the writer's attempt, one more slice. Written
  with the steps its Worker records in the same tick, not as a call of its own: it was one more
  round trip, ~40 arguments and transition-task.lua's general path every SLICE_MAX_STEPS steps.
  Atomically: the slice count + 1, who runs the slice (Worker, provider, code version), its
  heartbeat and updatedAt, statusReason cleared, the deadline index, and task.slice_started.
  Fenced as transition-task.lua fences the move: another attempt is STALE_ATTEMPT, a task not
  running (a stop, a pause, a recovery, a claim of done in between) is STATUS_MISMATCH, and
  nothing changes. The status is not written: it stays running (its indexes and clock with it).

  `shared`: what the entries of the call share (record-steps.lua): the shard's event stream and
  deadline index, and the stream's max length.

  The entry's keys are a step's seven (includes/record-step.lua); it uses +1, the task hash.
  Its n arguments are ARGV[a+1..a+n]:
  +1 attempt of the writer
  +2 now (ms)
  +3 the deadline for the deadline index (ms): now + STALE_AFTER_MS
  +4 workerId  +5 provider  +6 codeVersion

  Returns {code, status, attempt, sliceCount}.
]]
--- @include "fence"
--- @include "event"

local function continueSlice(shared, k, a, n)
  local taskKey = KEYS[k + 1]
  local stored = redis.call('HMGET', taskKey, 'status', 'attempt', 'tenantId', 'id')
  local status, attempt = stored[1], tonumber(stored[2])
  local refusal = fenceRefusal(status, attempt, ARGV[a + 1], nil)
  if refusal then return {refusal, status or '', attempt or 0, 0} end
  if status ~= 'running' then return {CODE_STATUS_MISMATCH, status, attempt, 0} end
  local now = ARGV[a + 2]
  local slices = redis.call('HINCRBY', taskKey, 'sliceCount', 1)
  redis.call('HSET', taskKey, 'workerId', ARGV[a + 4], 'provider', ARGV[a + 5], 'codeVersion', ARGV[a + 6],
    'lastHeartbeatAt', now, 'updatedAt', now, 'statusReason', '')
  redis.call('ZADD', shared.deadlineIndex, tonumber(ARGV[a + 3]), stored[4])
  emitEvent(shared.events, shared.streamMaxLen, 'task.slice_started', stored[4], stored[3], attempt, now,
    'running', 'running', '{}')
  return {CODE_APPLIED, status, attempt, slices}
end
