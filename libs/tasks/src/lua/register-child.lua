--[[
  Registers a child task with its parent, atomically per parent (docs/missions.md, "Child
  missions"): the child joins the parent's list of children and either takes one of the parent's
  MAX_PARALLEL_CHILDREN places (released: its first slice may be published) or waits in the parent's
  queue of held children, out of the deadline index, so no sweep publishes it. A child lives on its
  parent's shard, so every key here shares one hash tag. Registering a child twice changes nothing.

  KEYS[1] parent task hash
  KEYS[2] parent's children (list: every child id, oldest first)
  KEYS[3] parent's running children (set: released and not ended)
  KEYS[4] parent's held children (list: waiting for a place, oldest first)
  KEYS[5] child task hash
  KEYS[6] deadline index of the shard

  ARGV[1] child id
  ARGV[2] MAX_PARALLEL_CHILDREN
  ARGV[3] pick-up deadline of a released child (ms)

  Returns {code, placement}: APPLIED or EXISTING with "running" or "queued" (or "ended") · NOT_FOUND
  (no parent or no child) · STATUS_MISMATCH (the child names another parent) · NOT_ACTIVE (the parent
  has ended: the caller cancels the child)
]]
--- @include "codes"
--- @include "statuses"

local child = ARGV[1]
local parent = redis.call('HMGET', KEYS[1], 'id', 'status')
local stored = redis.call('HMGET', KEYS[5], 'parentId', 'childRegistered', 'status')
if not parent[1] or not stored[3] then return {CODE_NOT_FOUND, ''} end
if stored[1] ~= parent[1] then return {CODE_STATUS_MISMATCH, ''} end

local function placement()
  if redis.call('SISMEMBER', KEYS[3], child) == 1 then return 'running' end
  if redis.call('LPOS', KEYS[4], child) then return 'queued' end
  return 'ended'
end
if stored[2] == '1' then return {CODE_EXISTING, placement()} end
if isTerminal(parent[2]) then return {CODE_NOT_ACTIVE, ''} end

redis.call('RPUSH', KEYS[2], child)
redis.call('HSET', KEYS[5], 'childRegistered', '1')
local total = redis.call('HINCRBY', KEYS[1], 'childrenTotal', 1)
local result
if redis.call('SCARD', KEYS[3]) < tonumber(ARGV[2]) then
  redis.call('SADD', KEYS[3], child)
  redis.call('ZADD', KEYS[6], tonumber(ARGV[3]), child)
  result = 'running'
else
  redis.call('RPUSH', KEYS[4], child)
  redis.call('ZREM', KEYS[6], child)
  result = 'queued'
end
redis.call('HSET', KEYS[1], 'childrenRunning', redis.call('SCARD', KEYS[3]), 'childrenTotal', total)
return {CODE_APPLIED, result}
