--[[
  Reading the tenants' running places and queues (claim-tenant-slot.lua, release-tenant-slot.lua;
  docs/operations.md, "Tenant limits"). Every tenant's keys are `base .. tenant .. ':running'`,
  `':waiting'`, `':asks'`, under one hash tag.
]]

-- "<maxRunning> <weight> <last ask>" of the tenants hash: maxRunning 0 is none, weight at least 1.
local function tenantLimits(entry)
  if not entry then return 0, 1, 0 end
  local max, weight, asked = string.match(entry, '^(%d+) (%d+) (%d+)$')
  return tonumber(max or '0'), math.max(1, tonumber(weight or '1')), tonumber(asked or '0')
end

-- The waiting tenant (other than `exclude`) furthest below its share, as {tenant, held, weight}, or
-- nil: one that has a queued task, asked within `stale` ms and is under its own maxRunning, with
-- the fewest places per weight counting one more. Tenants holding and waiting for nothing leave
-- the hash here. Lapsed leases are dropped on the way.
local function neediestTenant(tenantsKey, base, exclude, now, stale)
  local entries = redis.call('HGETALL', tenantsKey)
  local best = nil
  for i = 1, #entries, 2 do
    local tenant = entries[i]
    if tenant ~= exclude then
      local max, weight, asked = tenantLimits(entries[i + 1])
      local running = base .. tenant .. ':running'
      redis.call('ZREMRANGEBYSCORE', running, '-inf', now)
      local held = redis.call('ZCARD', running)
      local queued = redis.call('ZCARD', base .. tenant .. ':waiting')
      if held == 0 and queued == 0 then
        redis.call('HDEL', tenantsKey, tenant)
      elseif queued > 0 and asked >= now - stale and (max == 0 or held < max) then
        if not best or (held + 1) * best.weight < (best.held + 1) * weight then
          best = {tenant = tenant, held = held, weight = weight}
        end
      end
    end
  end
  return best
end

-- The first queued task of a tenant with its slice job, as a flat {task id, job id}, or {}.
local function firstParked(base, tenant)
  local head = redis.call('ZRANGE', base .. tenant .. ':waiting', 0, 0)[1]
  if not head then return {} end
  local jobId = string.match(redis.call('HGET', base .. tenant .. ':asks', head) or '', '^%d+ (.+)$')
  if not jobId then return {} end
  return {head, jobId}
end
