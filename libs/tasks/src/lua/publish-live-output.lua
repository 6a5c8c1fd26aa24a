--[[
  Appends models' live output to the live streams of one shard's tasks (docs/api.md, "Live model
  output"): what a Worker's calls wrote in one turn of its event loop, in one call. Each entry is
  one event as JSON under the field `e` (libs/tasks/src/live/live-output.ts reads it back). Not
  part of any task's history: no record, index or event is touched.

  KEYS[1..n] the tasks' live output streams, all of one shard

  ARGV[1] entries kept per stream (XADD MAXLEN ~)
  ARGV[2] the streams' expiry, ms
  ARGV[3..] for each key in order: 1 to set its expiry (or 0), the number of its events, then
            its events (JSON)

  Returns the number of entries appended.
]]
local maxLen, window = ARGV[1], ARGV[2]
local at, appended = 3, 0
for i = 1, #KEYS do
  local key, expire, count = KEYS[i], ARGV[at], tonumber(ARGV[at + 1])
  at = at + 2
  for _ = 1, count do
    redis.call('XADD', key, 'MAXLEN', '~', maxLen, '*', 'e', ARGV[at])
    at = at + 1
  end
  if expire == '1' then redis.call('PEXPIRE', key, window) end
  appended = appended + count
end
return appended
