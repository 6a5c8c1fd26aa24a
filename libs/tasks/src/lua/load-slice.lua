--[[
  What a slice needs to start, read atomically in one round trip: the task record and the part of
  its context a slice uses (done logical steps, saved outputs, findings). The context is left out
  when the caller already holds it, as the slice that last wrote it left it. A worker that ran the
  task's previous slice so reads only the record, and starting a slice no longer costs a read of
  every step done so far.

  "As that slice left it" means all of these still match:
  - the attempt;
  - the action log's length: every step ever recorded appends exactly one entry, whichever
    version of record-step.lua wrote it (a worker of an older release does not know the rest);
  - contextVersion, which every script that changes the context increments (record-step.lua,
    reconcile-journal.lua: the latter changes the context without an action);
  - contextWriter, the id of the slice run that recorded the last step: unique per run, so a
    history replayed after Redis lost writes (restart from a snapshot, failover to a lagging
    replica) cannot pass for the one the caller holds even where the counts come out the same.

  KEYS[1] task hash
  KEYS[2] action log (list)
  KEYS[3] done logical steps (set)
  KEYS[4] saved outputs (hash: step key -> JSON)
  KEYS[5] findings (list)
  KEYS[6] steering list (instructions given while the task ran: steer-task.lua)

  ARGV[1] attempt of the held context ("0": none held)
  ARGV[2] action log length it reflects
  ARGV[3] contextVersion it reflects
  ARGV[4] contextWriter it reflects
  ARGV[5] how many of the latest actions to include with the context

  Returns {record, CONTEXT_HELD, steering} when the held context is current, else {record,
  CONTEXT_INCLUDED, doneSteps, outputs, findings, recentActions, steering}; record is the hash as one
  JSON object of field -> string ("": no such task); recentActions the last ARGV[5] entries of the
  action log; steering every instruction given, oldest first (read only when the record counts one:
  a task never steered costs no command more). The record is one string, not HGETALL's flat array:
  the Worker decodes one value instead of two per field (some fifty) on every slice it starts, and
  writing one string costs Redis no more than the pairs did (docs/ARCHITECTURE.md, "Throughput:
  what one step costs").
]]
--- @include "codes"

local flat = redis.call('HGETALL', KEYS[1])
if #flat == 0 then return {'', CONTEXT_HELD} end
local stored = {}
for i = 1, #flat, 2 do stored[flat[i]] = flat[i + 1] end
local record = cjson.encode(stored)
local steering = {}
if tonumber(stored.steerCount or '0') > 0 then steering = redis.call('LRANGE', KEYS[6], 0, -1) end
if stored.attempt == ARGV[1] and tostring(redis.call('LLEN', KEYS[2])) == ARGV[2]
    and (stored.contextVersion or '0') == ARGV[3] and (stored.contextWriter or '') == ARGV[4] then
  return {record, CONTEXT_HELD, steering}
end
return {record, CONTEXT_INCLUDED, redis.call('SMEMBERS', KEYS[3]), redis.call('HGETALL', KEYS[4]),
  redis.call('LRANGE', KEYS[5], 0, -1), redis.call('LRANGE', KEYS[2], -tonumber(ARGV[5]), -1), steering}
