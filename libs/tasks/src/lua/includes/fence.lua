--- @include "codes"
--[[
  Fencing (docs/ARCHITECTURE.md, "Fencing"). The task's `attempt` is the fencing token: the
  Watcher increments it on every recovery, and a write made on behalf of attempt n is accepted
  only while the stored attempt is exactly n. Redlock gives no token of its own, and a Worker
  that was frozen, partitioned or paused by GC may wake long after its lease of the task ended:
  equality shuts it out whichever way its attempt differs (no writer may act for an attempt
  that has not started yet, so "older" and "different" are one rule).

  fenceRefusal(stored status, stored attempt, writer attempt, allowed(status) or nil)
  answers nil when the write may proceed, else the code to return: NOT_FOUND without a record,
  STALE_ATTEMPT for another attempt, NOT_ACTIVE when `allowed` says no to the stored status.
]]
local function fenceRefusal(status, storedAttempt, writerAttempt, allowed)
  if not status then return CODE_NOT_FOUND end
  if tonumber(writerAttempt) ~= tonumber(storedAttempt) then return CODE_STALE_ATTEMPT end
  if allowed and not allowed(status) then return CODE_NOT_ACTIVE end
  return nil
end
