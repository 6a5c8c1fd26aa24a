--[[
  Claims one scheduled progress update of a task and appends it, atomically, so any number of
  notifier replicas send each update once. Updates are due by time: slot k (k >= 1) of a task is
  [createdAt + k*interval, createdAt + (k+1)*interval) and carries at most one update. The claim
  is recorded in `lastUserUpdateAt` and the task is rescored in the update index to its next slot.

  Rules, in order:
  - no record: dropped from the index
  - terminal, or its final message sent: dropped from the index, nothing sent after the end
  - slot not started, or already claimed (lastUserUpdateAt inside it): rescored, nothing sent
  - paused / waiting_on_human: the slot is skipped (the user was told and nothing moves); rescored
  - the previous update went out less than half an interval ago (it was late): deferred to half
    an interval after it, so two updates never land back to back
  - otherwise: appended to the log, a task.progress event carries it to live streams, outbox filled

  KEYS[1] task hash
  KEYS[2] user-update index of the shard
  KEYS[3] message log
  KEYS[4] message index (hash: message id -> position)
  KEYS[5] event stream of the shard
  KEYS[6] notify outbox of the shard

  ARGV[1] task id
  ARGV[2] now (ms)
  ARGV[3] interval (ms)
  ARGV[4] slot the caller composed the message for
  ARGV[5] message id ("" only when the caller found no record: then nothing can be claimed)
  ARGV[6] message JSON
  ARGV[7] data of the task.progress event that carries the message, JSON
  ARGV[8] event stream max length (approximate)
  ARGV[9..] outbox entries (JSON)

  Returns {code, next due}: MESSAGE_APPENDED (claimed) · NOT_DUE (rescored) · NOT_FOUND ·
  FINISHED · SLOT_MOVED (the caller's slot is not the current one: nothing changed) · PARKED
  (paused or waiting, rescored)
]]
--- @include "codes"
--- @include "statuses"
--- @include "event"

local id = ARGV[1]
local stored = redis.call('HMGET', KEYS[1], 'status', 'createdAt', 'lastUserUpdateAt', 'finalMessageId',
  'tenantId', 'attempt')
local status = stored[1]
if not status then
  redis.call('ZREM', KEYS[2], id)
  return {MESSAGE_NOT_FOUND, 0}
end
if isTerminal(status) or stored[4] then
  redis.call('ZREM', KEYS[2], id)
  return {MESSAGE_FINISHED, 0}
end

local now, interval, createdAt = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(stored[2])
local slot = math.floor((now - createdAt) / interval)
if slot ~= tonumber(ARGV[4]) or ARGV[5] == '' then return {MESSAGE_SLOT_MOVED, 0} end
local nextDue = createdAt + (slot + 1) * interval
if slot < 1 then
  redis.call('ZADD', KEYS[2], createdAt + interval, id)
  return {MESSAGE_NOT_DUE, createdAt + interval}
end
local last = tonumber(stored[3])
if last and math.floor((last - createdAt) / interval) >= slot then
  redis.call('ZADD', KEYS[2], nextDue, id)
  return {MESSAGE_NOT_DUE, nextDue}
end
if isParked(status) then
  redis.call('ZADD', KEYS[2], nextDue, id)
  return {MESSAGE_PARKED, nextDue}
end
if last and now - last < interval / 2 then
  local deferred = last + math.ceil(interval / 2)
  redis.call('ZADD', KEYS[2], deferred, id)
  return {MESSAGE_NOT_DUE, deferred}
end

if redis.call('HSETNX', KEYS[4], ARGV[5], -1) == 1 then
  local position = redis.call('RPUSH', KEYS[3], ARGV[6]) - 1
  redis.call('HSET', KEYS[4], ARGV[5], position)
  emitEvent(KEYS[5], ARGV[8], 'task.progress', id, stored[5], stored[6] or '1', ARGV[2], status, status, ARGV[7])
  for i = 9, #ARGV do
    redis.call('ZADD', KEYS[6], now, ARGV[i])
  end
end
redis.call('HSET', KEYS[1], 'lastUserUpdateAt', ARGV[2])
redis.call('ZADD', KEYS[2], nextDue, id)
return {MESSAGE_APPENDED, nextDue}
