--[[
  Records one turn of a conversation in one step: the person's message, Vigil's reply, the reply
  as the answer to the message id (see claim-conversation-message.lua), and, when the turn
  started a mission, the task in the conversation's index and, unless it runs alongside, as the
  conversation's active mission.

  KEYS[1] conversation log (list of entry JSON, oldest first)
  KEYS[2] processed message ids (hash)
  KEYS[3] the conversation's tasks (sorted set, score: created at ms)
  KEYS[4] conversation state (hash: activeTaskId)

  ARGV[1] the person's entry, JSON
  ARGV[2] the reply entry, JSON
  ARGV[3] message id, or '' when the message carried none
  ARGV[4] task id the turn started, or ''
  ARGV[5] now (ms)
  ARGV[6] '1' when the started task becomes the active mission
  ARGV[7] most entries kept in the log

  Returns {code}: APPLIED
]]
--- @include "codes"

redis.call('RPUSH', KEYS[1], ARGV[1], ARGV[2])
redis.call('LTRIM', KEYS[1], -tonumber(ARGV[7]), -1)
if ARGV[3] ~= '' then redis.call('HSET', KEYS[2], ARGV[3], ARGV[2]) end
if ARGV[4] ~= '' then
  redis.call('ZADD', KEYS[3], tonumber(ARGV[5]), ARGV[4])
  if ARGV[6] == '1' then redis.call('HSET', KEYS[4], 'activeTaskId', ARGV[4]) end
end
return {CODE_APPLIED}
