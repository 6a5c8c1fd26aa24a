--[[
  Claims a conversation message id, so each message is processed once however often it is sent
  (a client retrying after a timeout, two API processes): the first claim wins; a later one reads
  the stored reply, or learns that the first is still being processed. A claim left by a process
  that died is taken over after its lease runs out.

  KEYS[1] processed message ids (hash: messageId -> reply JSON, or "pending:<until ms>")

  ARGV[1] message id
  ARGV[2] now (ms)
  ARGV[3] lease (ms): how long a claim may stay pending

  Returns {code, reply}: CLAIMED (process it) · DUPLICATE (reply: the stored reply JSON)
  · PENDING (another request is processing it)
]]
--- @include "codes"

local stored = redis.call('HGET', KEYS[1], ARGV[1])
if stored then
  local pendingUntil = string.match(stored, '^pending:(%d+)$')
  if not pendingUntil then return {CONVERSATION_DUPLICATE, stored} end
  if tonumber(pendingUntil) > tonumber(ARGV[2]) then return {CONVERSATION_PENDING, ''} end
end
redis.call('HSET', KEYS[1], ARGV[1], 'pending:' .. (tonumber(ARGV[2]) + tonumber(ARGV[3])))
return {CONVERSATION_CLAIMED, ''}
