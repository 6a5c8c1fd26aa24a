--[[
  A new task joins its tenant's queue for a running place at its creation (docs/operations.md,
  "Tenant limits"), before any Worker picks up its first slice: the fair share then knows the
  tenant waits while its slice jobs are still behind other tenants' in the slice queue, and
  under maxRunning places go in creation order. Its first claim (claim-tenant-slot.lua) takes it
  out of the queue or keeps it there; a task whose job never comes loses its turn once stale.

  KEYS[1] the active tenants (hash: tenant -> "<maxRunning, 0 = none> <weight> <last ask ms>")
  KEYS[2] the tenant's queue for a place (sorted set: task id -> when it first asked, ms)
  KEYS[3] the queue's last asks (hash: task id -> "<last ask ms> <slice job id>")

  ARGV[1] task id
  ARGV[2] its first slice job id
  ARGV[3] now (ms)
  ARGV[4] maxRunning (0: none)
  ARGV[5] the tenant's weight
  ARGV[6] tenant id

  Returns {code}: APPLIED
]]
--- @include "codes"

redis.call('ZADD', KEYS[2], 'NX', ARGV[3], ARGV[1])
redis.call('HSET', KEYS[3], ARGV[1], ARGV[3] .. ' ' .. ARGV[2])
redis.call('HSET', KEYS[1], ARGV[6], ARGV[4] .. ' ' .. ARGV[5] .. ' ' .. ARGV[3])
return {CODE_APPLIED}
