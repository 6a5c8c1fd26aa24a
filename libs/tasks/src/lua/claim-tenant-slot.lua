--[[
  A tenant's running places (the catalog's `tenants.<id>.maxRunning`, docs/operations.md, "Tenant
  limits"): takes, or keeps, one for a task whose slice a Worker picked up. A place is a lease:
  it lasts `lease` ms from the last claim (each slice claims again, and the Worker renews it with
  its heartbeat), so a Worker that died frees it without anyone's help.

  Fair within the tenant: tasks refused a place queue in the order they first asked, and a free
  place goes to the first of them, never to a later one. A queued task that stopped asking (it was
  stopped, or its job is gone) leaves the queue when it reaches the front without having asked for
  `stale` ms. Other tenants' keys are not touched: a tenant waiting never holds anyone else up.

  KEYS[1] the tenant's running places (sorted set: task id -> lease expiry, ms)
  KEYS[2] the tenant's queue for a place (sorted set: task id -> when it first asked, ms)
  KEYS[3] the queue's last asks (hash: task id -> "<last ask ms> <slice job id>")

  ARGV[1] task id
  ARGV[2] slice job id (what a freed place promotes)
  ARGV[3] now (ms)
  ARGV[4] lease (ms)
  ARGV[5] maxRunning
  ARGV[6] stale (ms)

  Returns {code, running, firstWait}: APPLIED (the place is the task's until now + lease) ·
  NOT_ALLOWED (no place: the task is queued; firstWait 1 when it just joined the queue, else 0)
]]
--- @include "codes"

local id, now, lease, max = ARGV[1], tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZSCORE', KEYS[1], id) then
  redis.call('ZADD', KEYS[1], now + lease, id)
  return {CODE_APPLIED, redis.call('ZCARD', KEYS[1]), 0}
end
local free = max - redis.call('ZCARD', KEYS[1])
-- Queued tasks ahead that stopped asking give their turn up (bounded: at most 100 per call).
local dropped = 0
while free > 0 and dropped < 100 do
  local heads = redis.call('ZRANGE', KEYS[2], 0, free - 1)
  local stale = nil
  for _, head in ipairs(heads) do
    if head ~= id then
      local asked = tonumber(string.match(redis.call('HGET', KEYS[3], head) or '0', '^(%d+)') or '0')
      if asked < now - tonumber(ARGV[6]) then stale = head break end
    end
  end
  if not stale then break end
  redis.call('ZREM', KEYS[2], stale)
  redis.call('HDEL', KEYS[3], stale)
  dropped = dropped + 1
end
local rank = redis.call('ZRANK', KEYS[2], id)
if rank == false then rank = redis.call('ZCARD', KEYS[2]) end
if free > 0 and rank < free then
  redis.call('ZADD', KEYS[1], now + lease, id)
  redis.call('ZREM', KEYS[2], id)
  redis.call('HDEL', KEYS[3], id)
  return {CODE_APPLIED, redis.call('ZCARD', KEYS[1]), 0}
end
local firstWait = redis.call('ZADD', KEYS[2], 'NX', now, id)
redis.call('HSET', KEYS[3], id, ARGV[3] .. ' ' .. ARGV[2])
return {CODE_NOT_ALLOWED, redis.call('ZCARD', KEYS[1]), firstWait}
