--[[
  Return codes of every script, mirrored by the enums of script-codes.ts (a unit test compares
  the two). A script answers a code first, so TypeScript maps a refusal to one typed error.
  Plain locals, not tables: a table would be built again on every call of every script, and a
  tool step's script runs thousands of times a second.
]]
local CODE_APPLIED = 0
local CODE_CREATED = 1
local CODE_EXISTING = 2
local CODE_NOT_FOUND = -1
local CODE_NOT_ALLOWED = -2
local CODE_STALE_ATTEMPT = -3
local CODE_STATUS_MISMATCH = -4
local CODE_IDEMPOTENCY_CONFLICT = -5
local CODE_NOT_ACTIVE = -6
local CODE_INVALID_OPERATION = -12

-- The user-message scripts (append-message, claim-update) answer outcomes of their own.
local MESSAGE_NOT_DUE = 0
local MESSAGE_APPENDED = 1
local MESSAGE_DUPLICATE = 2
local MESSAGE_NOT_FOUND = -1
local MESSAGE_FINISHED = -7
local MESSAGE_SLOT_MOVED = -8
local MESSAGE_PARKED = -9
local MESSAGE_AFTER_FINAL = -10
local MESSAGE_OTHER_FINAL = -11

-- load-slice answers whether the caller's held context is current or the context is included.
local CONTEXT_HELD = 0
local CONTEXT_INCLUDED = 1

-- claim-conversation-message answers whether the caller processes the message.
local CONVERSATION_CLAIMED = 0
local CONVERSATION_DUPLICATE = 1
local CONVERSATION_PENDING = 2

-- The schedule scripts (create, state, claim a fire, record a run) answer outcomes of their own.
local SCHEDULE_APPLIED = 0
local SCHEDULE_CLAIMED = 1
local SCHEDULE_DUPLICATE = 2
local SCHEDULE_NOT_FOUND = -1
local SCHEDULE_LIMIT = -13
local SCHEDULE_PAUSED = -14
local SCHEDULE_BUSY = -15
