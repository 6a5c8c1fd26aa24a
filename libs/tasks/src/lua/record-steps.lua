--[[
  The steps a Worker's slices recorded within one tick of its event loop, in one round trip: a
  group commit (docs/ARCHITECTURE.md, "Throughput: what one step costs"). Each entry is applied on
  its own, in order — a step by includes/record-step.lua, a slice continued in place by
  includes/continue-slice.lua (both fenced, atomic with the rest of the call) — and answers on its
  own: an entry refused, or one that fails, leaves the others as they are. The entries share a
  shard: the shard's keys and the settings come once per call, not once per entry.

  KEYS[1] event stream of the shard
  KEYS[2] deadline index of the shard
  KEYS[3] call-deadline index of the shard
  KEYS[4..n] seven per entry, in the order includes/record-step.lua lists them: the entry i has
             KEYS[3 + 7(i-1) + 1 .. 3 + 7i]

  ARGV[1] event stream max length (approximate)
  ARGV[2] least time between two task.progress events of a task (ms; 0: one per step)
  ARGV[3] slack of the deadline index (ms; see includes/record-step.lua)
  ARGV[4..], per entry in the order of its keys: what it is ("step" or "continue"), the count c
  of its arguments, then those c arguments (record-step.lua's or continue-slice.lua's +1..+c).

  Returns one string: a line per entry, in order, its fields joined by commas — a step's
  code,status,attempt,step,completedUnits,consecutiveErrors,contextVersion,steerCount, a
  continuation's code,status,attempt,sliceCount — or "error,<message>" for an entry whose script
  raised an error (a write refused by a full Redis, say; a newline in the message becomes a
  space). One bulk string, not a nested array: the client decodes one value per call instead of
  nine per step.
]]
--- @include "record-step"
--- @include "continue-slice"

local shared = {events = KEYS[1], deadlineIndex = KEYS[2], callDeadlineIndex = KEYS[3],
  streamMaxLen = ARGV[1], progressIntervalMs = tonumber(ARGV[2]), slackMs = tonumber(ARGV[3])}
local replies = {}
local a = 3
for k = 3, #KEYS - 7, 7 do
  local entry = recordStep
  if ARGV[a + 1] == 'continue' then entry = continueSlice end
  local n = tonumber(ARGV[a + 2])
  local ok, reply = pcall(entry, shared, k, a + 2, n)
  if ok then
    replies[#replies + 1] = table.concat(reply, ',')
  else
    -- redis.call raises a table ({err = …}) for a refused command, a string for a Lua error.
    local message = type(reply) == 'table' and (reply.err or 'error') or tostring(reply)
    replies[#replies + 1] = 'error,' .. string.gsub(message, '\n', ' ')
  end
  a = a + 2 + n
end
return table.concat(replies, '\n')
