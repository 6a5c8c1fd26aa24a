--[[
  A running place for a task whose slice a Worker picked up (docs/operations.md, "Tenant limits"):
  takes, or keeps, one. A place is a lease: it lasts `lease` ms from the last claim (each slice
  claims again, and the Worker renews it with its heartbeat), so a Worker that died frees it
  without anyone's help.

  Two rules, each optional:
  - maxRunning (the catalog's `tenants.<id>.maxRunning`): at most that many places per tenant.
    Fair within the tenant: tasks refused a place queue in the order they first asked, and a free
    place goes to the first of them, never to a later one. A queued task that stopped asking (it
    was stopped, or its job is gone) leaves the queue when it reaches the front without having
    asked for `stale` ms.
  - the fair share (TENANT_FAIR_SHARE, weights from `tenants.<id>.weight`): while another tenant
    waits for a place it could take, a tenant takes a new one only if, per unit of weight, it would
    then hold no more than that tenant would holding one more: (held + 1) / weight <=
    (held_u + 1) / weight_u for every waiting tenant u. Nobody waiting, nobody is held back.
    A tenant waits (for this rule) while it has a queued task, asked within `stale` ms, and is
    under its own maxRunning. O(active tenants) per call.

  Every tenant's keys share one hash tag (RedisKeys.tenantSlots); another tenant's keys are
  `base .. tenant .. ':running' | ':waiting' | ':asks'`.

  KEYS[1] the active tenants (hash: tenant -> "<maxRunning, 0 = none> <weight> <last ask ms>")
  KEYS[2] the tenant's running places (sorted set: task id -> lease expiry, ms)
  KEYS[3] the tenant's queue for a place (sorted set: task id -> when it first asked, ms)
  KEYS[4] the queue's last asks (hash: task id -> "<last ask ms> <slice job id>")

  ARGV[1] task id
  ARGV[2] slice job id (what a freed place promotes)
  ARGV[3] now (ms)
  ARGV[4] lease (ms)
  ARGV[5] maxRunning (0: none)
  ARGV[6] stale (ms)
  ARGV[7] the tenant's weight (a whole number from 1)
  ARGV[8] key base of every tenant's slot keys
  ARGV[9] tenant id
  ARGV[10] the fair share: 1 on, 0 off

  Returns {code, running, firstWait, reason, wake}: APPLIED (the place is the task's until now +
  lease) · NOT_ALLOWED (no place: the task is queued; firstWait 1 when it just joined the queue;
  reason 'max' or 'fair'; wake a flat array task id, slice job id of the tenant whose turn it is,
  for the caller to wake its parked job)
]]
--- @include "codes"
--- @include "tenant-places"

local id, now, lease, max = ARGV[1], tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
local stale, weight, base, tenant = tonumber(ARGV[6]), tonumber(ARGV[7]), ARGV[8], ARGV[9]
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)

local function grant()
  redis.call('ZADD', KEYS[2], now + lease, id)
  redis.call('ZREM', KEYS[3], id)
  redis.call('HDEL', KEYS[4], id)
  local _, _, asked = tenantLimits(redis.call('HGET', KEYS[1], tenant))
  redis.call('HSET', KEYS[1], tenant, max .. ' ' .. weight .. ' ' .. asked)
  return {CODE_APPLIED, redis.call('ZCARD', KEYS[2]), 0, '', {}}
end

local function wait(reason, wake)
  local firstWait = redis.call('ZADD', KEYS[3], 'NX', now, id)
  redis.call('HSET', KEYS[4], id, ARGV[3] .. ' ' .. ARGV[2])
  redis.call('HSET', KEYS[1], tenant, max .. ' ' .. weight .. ' ' .. ARGV[3])
  return {CODE_NOT_ALLOWED, redis.call('ZCARD', KEYS[2]), firstWait, reason, wake}
end

-- The holder's next slice: its lease renewed, nothing else read or written.
if redis.call('ZSCORE', KEYS[2], id) then
  redis.call('ZADD', KEYS[2], now + lease, id)
  return {CODE_APPLIED, redis.call('ZCARD', KEYS[2]), 0, '', {}}
end
local held = redis.call('ZCARD', KEYS[2])
if max > 0 then
  local free = max - held
  -- Queued tasks ahead that stopped asking give their turn up (bounded: at most 100 per call).
  local dropped = 0
  while free > 0 and dropped < 100 do
    local heads = redis.call('ZRANGE', KEYS[3], 0, free - 1)
    local gone = nil
    for _, head in ipairs(heads) do
      if head ~= id then
        local asked = tonumber(string.match(redis.call('HGET', KEYS[4], head) or '0', '^(%d+)') or '0')
        if asked < now - stale then gone = head break end
      end
    end
    if not gone then break end
    redis.call('ZREM', KEYS[3], gone)
    redis.call('HDEL', KEYS[4], gone)
    dropped = dropped + 1
  end
  local rank = redis.call('ZRANK', KEYS[3], id)
  if rank == false then rank = redis.call('ZCARD', KEYS[3]) end
  if free <= 0 or rank >= free then return wait('max', {}) end
end
if ARGV[10] == '1' then
  local turn = neediestTenant(KEYS[1], base, tenant, now, stale)
  if turn and (held + 1) * turn.weight > (turn.held + 1) * weight then
    return wait('fair', firstParked(base, turn.tenant))
  end
end
return grant()
