--[[
  Reserves what one model call may cost at most against the task's budget, before the call:
  spentUsd + reservedUsd never exceed budgetUsd, whatever number of calls reserve at once. The
  caller asks for the worst case and names the least it can work with (a call may lower its
  max_tokens to fit); the grant is the worst case if it fits, else what is left if that is at
  least the floor, else nothing. record-step.lua settles the grant to the real cost.
  Fenced like every Worker write.

  KEYS[1] task hash

  ARGV[1] attempt of the writer
  ARGV[2] worst case in USD (negative: releases that much of an earlier grant, unchecked)
  ARGV[3] floor in USD (the least the call can be made with)

  Returns {code, status, attempt, granted, remaining}: APPLIED (granted, USD, as a string) ·
  NOT_ALLOWED (refused: not even the floor fits; remaining as a string) · NOT_FOUND ·
  STALE_ATTEMPT · NOT_ACTIVE
]]
--- @include "fence"
--- @include "working"

local stored = redis.call('HMGET', KEYS[1], 'status', 'attempt', 'budgetUsd', 'spentUsd', 'reservedUsd')
local status, attempt = stored[1], tonumber(stored[2])
local refusal = fenceRefusal(status, attempt, ARGV[1], isWorking)
if refusal then return {refusal, status or '', attempt or 0, '0', '0'} end

local budget = tonumber(stored[3] or '0') or 0
local used = (tonumber(stored[4] or '0') or 0) + (tonumber(stored[5] or '0') or 0)
local remaining = budget - used
local worst, floor = tonumber(ARGV[2]), tonumber(ARGV[3])
-- A budget of 0 means no per-task limit; a release always goes through.
if budget <= 0 or worst < 0 then
  redis.call('HINCRBYFLOAT', KEYS[1], 'reservedUsd', worst)
  return {CODE_APPLIED, status, attempt, ARGV[2], '-1'}
end
-- Rounded down to the micro-dollar, so a grant never passes what is left.
local granted = math.min(worst, math.floor(remaining * 1e6) / 1e6)
if granted < floor or granted <= 0 then
  return {CODE_NOT_ALLOWED, status, attempt, '0', string.format('%.6f', math.max(0, remaining))}
end
local grant = string.format('%.6f', granted)
redis.call('HINCRBYFLOAT', KEYS[1], 'reservedUsd', grant)
return {CODE_APPLIED, status, attempt, grant, string.format('%.6f', remaining - granted)}
