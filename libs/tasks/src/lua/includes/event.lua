--[[
  The envelope of every task event on the shard's stream (libs/events task-event.ts decodes it):
  type, taskId, tenantId, attempt, at, status, from, data (JSON). Streams are capped
  approximately (MAXLEN ~), which keeps XADD O(1) amortised.
]]
local function emitEvent(stream, maxLen, eventType, taskId, tenantId, attempt, at, status, from, data)
  redis.call('XADD', stream, 'MAXLEN', '~', maxLen, '*',
    'type', eventType, 'taskId', taskId, 'tenantId', tenantId or '', 'attempt', tostring(attempt),
    'at', tostring(at), 'status', status, 'from', from or '', 'data', data or '{}')
end
