--[[
  Records one instruction given to a task while it runs (docs/api.md, "Steering"), atomically: the
  instruction appended to the task's steering list, the record's `steerCount` raised (record-step.lua
  hands it back on every step, so a running slice sees a new instruction without a read of its own),
  and the task.steered event. A task that has finished refuses; any other status takes it (a paused
  or waiting task reads it when it resumes, from load-slice.lua). The same instruction id twice
  records it once: the second call gets the first entry back.

  KEYS[1] task hash
  KEYS[2] steering list (JSON entries, oldest first)
  KEYS[3] action log (list: its length says after which step the instruction came)
  KEYS[4] event stream of the shard

  ARGV[1] tenant id of the caller (another tenant's task is not found)
  ARGV[2] instruction id
  ARGV[3] instruction text
  ARGV[4] now (ms)
  ARGV[5] most instructions a task keeps
  ARGV[6] event stream max length (approximate)

  Returns {code, status, entry}: APPLIED (entry: the new instruction, JSON) · EXISTING (entry: the
  one recorded under that id before) · NOT_FOUND · STATUS_MISMATCH (finished) · NOT_ALLOWED (the
  task holds ARGV[5] instructions already)
]]
--- @include "codes"
--- @include "statuses"
--- @include "event"

local stored = redis.call('HMGET', KEYS[1], 'status', 'tenantId', 'id', 'attempt', 'steerCount')
local status = stored[1]
if not status or stored[2] ~= ARGV[1] then return {CODE_NOT_FOUND, '', ''} end

local given = redis.call('LRANGE', KEYS[2], 0, -1)
for i = 1, #given do
  if cjson.decode(given[i]).id == ARGV[2] then return {CODE_EXISTING, status, given[i]} end
end
if isTerminal(status) then return {CODE_STATUS_MISMATCH, status, ''} end
if #given >= tonumber(ARGV[5]) then return {CODE_NOT_ALLOWED, status, ''} end

local afterStep = redis.call('LLEN', KEYS[3])
local entry = cjson.encode({id = ARGV[2], text = ARGV[3], at = tonumber(ARGV[4]), afterStep = afterStep,
  status = status, attempt = tonumber(stored[4])})
redis.call('RPUSH', KEYS[2], entry)
redis.call('HSET', KEYS[1], 'steerCount', #given + 1)
emitEvent(KEYS[4], ARGV[6], 'task.steered', stored[3], stored[2], stored[4], ARGV[4], status, status,
  cjson.encode({id = ARGV[2], text = ARGV[3], afterStep = afterStep}))
return {CODE_APPLIED, status, entry}
