--[[
  The steps a Worker's slices recorded within one tick of its event loop, in one round trip: a
  group commit (docs/ARCHITECTURE.md, "Throughput: what one step costs"). Each step is applied on
  its own, in order, by includes/record-step.lua (fenced, atomic with the rest of the call), and
  answers on its own: a step refused, or one that fails, leaves the others as they are.

  KEYS[1..n] the steps' keys, ten per step in the order includes/record-step.lua lists them: the
             step i has KEYS[10(i-1)+1 .. 10i]

  ARGV, per step in the order of its keys: the count c of its arguments, then those c arguments
  (includes/record-step.lua's ARGV[1..c]).

  Returns one reply per step, in order: record-step's {code, status, attempt, step,
  completedUnits, consecutiveErrors, contextVersion, steerCount}, or {'error', message} for a
  step whose script raised an error (a write refused by a full Redis, say).
]]
--- @include "record-step"

local replies = {}
local at = 1
for first = 1, #KEYS, 10 do
  local count = tonumber(ARGV[at])
  local keys = {unpack(KEYS, first, first + 9)}
  local args = {unpack(ARGV, at + 1, at + count)}
  at = at + count + 1
  local ok, reply = pcall(recordStep, keys, args)
  if not ok then
    -- redis.call raises a table ({err = …}) for a refused command, a string for a Lua error.
    reply = {'error', type(reply) == 'table' and (reply.err or 'error') or tostring(reply)}
  end
  replies[#replies + 1] = reply
end
return replies
