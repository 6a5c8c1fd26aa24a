--[[
  The gateway's spend limit across every Worker: reserves an amount if it fits under the limit.
  A negative amount releases (settles a reservation that was larger than the real cost).

  KEYS[1] global spend counter (USD, float)

  ARGV[1] amount in USD
  ARGV[2] limit in USD ("" = no limit)

  Returns {code, total}: APPLIED (reserved) · NOT_ALLOWED (refused: the call would exceed the limit)
]]
--- @include "codes"

local current = tonumber(redis.call('GET', KEYS[1]) or '0')
local amount = tonumber(ARGV[1])
if amount > 0 and ARGV[2] ~= '' and current + amount > tonumber(ARGV[2]) then
  return {CODE_NOT_ALLOWED, tostring(current)}
end
return {CODE_APPLIED, redis.call('INCRBYFLOAT', KEYS[1], ARGV[1])}
