--[[
  The spend limits shared by every Worker and API replica: reserves an amount if it fits under the
  global limit and under the tenant's daily budget, both or neither. A negative amount releases
  (settles a reservation that was larger than the real cost) from both counters, unchecked.
  The tenant's counter is one per UTC day; it expires a couple of days after it was started, so
  yesterday's spend never counts today and nothing grows without bound.

  KEYS[1] global spend counter (USD, float)
  KEYS[2] the tenant's spend counter of the day (USD, float; same cluster slot as KEYS[1])

  ARGV[1] amount in USD
  ARGV[2] global limit in USD ("" = no limit)
  ARGV[3] the tenant's daily budget in USD ("" = no limit)
  ARGV[4] lifetime of the tenant's day counter, seconds

  Returns {code, total, tenantTotal, refusedBy}: APPLIED (reserved; refusedBy "") · NOT_ALLOWED
  (refused: the call would exceed a limit; refusedBy "global" or "tenant", totals unchanged)
]]
--- @include "codes"

local current = tonumber(redis.call('GET', KEYS[1]) or '0')
local tenantCurrent = tonumber(redis.call('GET', KEYS[2]) or '0')
local amount = tonumber(ARGV[1])
if amount > 0 and ARGV[2] ~= '' and current + amount > tonumber(ARGV[2]) then
  return {CODE_NOT_ALLOWED, tostring(current), tostring(tenantCurrent), 'global'}
end
if amount > 0 and ARGV[3] ~= '' and tenantCurrent + amount > tonumber(ARGV[3]) then
  return {CODE_NOT_ALLOWED, tostring(current), tostring(tenantCurrent), 'tenant'}
end
local total = redis.call('INCRBYFLOAT', KEYS[1], ARGV[1])
local tenantTotal = redis.call('INCRBYFLOAT', KEYS[2], ARGV[1])
if redis.call('TTL', KEYS[2]) < 0 then redis.call('EXPIRE', KEYS[2], tonumber(ARGV[4])) end
return {CODE_APPLIED, total, tenantTotal, ''}
