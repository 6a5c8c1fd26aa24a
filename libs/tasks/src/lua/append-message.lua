--[[
  Appends one user message to a task's message log at most once per message id, and queues its
  external deliveries in the shard's outbox, atomically: a redelivered event, a second notifier
  replica or a crash between steps can neither duplicate a message nor lose its deliveries.
  A final message (the answer to a terminal event) is claimed on the record (`finalMessageId`,
  `finalMessageAt`): a task has one, and nothing is appended after it.

  KEYS[1] task hash
  KEYS[2] message log (list of message JSON)
  KEYS[3] message index (hash: message id -> position in the log)
  KEYS[4] notify outbox of the shard (sorted set: delivery entry JSON, scored by enqueue time)
  KEYS[5] user-update index of the shard

  ARGV[1] task id
  ARGV[2] message id
  ARGV[3] message JSON
  ARGV[4] "1" when this is the task's final message
  ARGV[5] now (ms)
  ARGV[6..] outbox entries (JSON), one per external channel; none for the log alone

  Returns {code, position}: MESSAGE_APPENDED · DUPLICATE (already appended: its position) ·
  NOT_FOUND · AFTER_FINAL (refused, the final message was already sent) · OTHER_FINAL (refused,
  another final message exists)
]]
--- @include "codes"

local existing = redis.call('HGET', KEYS[3], ARGV[2])
if existing then return {MESSAGE_DUPLICATE, tonumber(existing)} end

local stored = redis.call('HMGET', KEYS[1], 'status', 'finalMessageId')
if not stored[1] then return {MESSAGE_NOT_FOUND, -1} end
if stored[2] then
  if ARGV[4] == '1' then return {MESSAGE_OTHER_FINAL, -1} end
  return {MESSAGE_AFTER_FINAL, -1}
end

local position = redis.call('RPUSH', KEYS[2], ARGV[3]) - 1
redis.call('HSET', KEYS[3], ARGV[2], position)
if ARGV[4] == '1' then
  redis.call('HSET', KEYS[1], 'finalMessageId', ARGV[2], 'finalMessageAt', ARGV[5])
  -- The terminal transition already left the index; this keeps "nothing after the final" local.
  redis.call('ZREM', KEYS[5], ARGV[1])
end
for i = 6, #ARGV do
  redis.call('ZADD', KEYS[4], tonumber(ARGV[5]), ARGV[i])
end
return {MESSAGE_APPENDED, position}
