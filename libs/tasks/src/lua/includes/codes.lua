--[[
  Return codes of every script, mirrored by ScriptCode in script-codes.ts (a unit test compares
  the two). A script answers a code first, so TypeScript maps a refusal to one typed error.
]]
local CODE = {
  APPLIED = 0,
  CREATED = 1,
  EXISTING = 2,
  NOT_FOUND = -1,
  NOT_ALLOWED = -2,
  STALE_ATTEMPT = -3,
  STATUS_MISMATCH = -4,
  IDEMPOTENCY_CONFLICT = -5,
  NOT_ACTIVE = -6,
}

-- The user-message scripts (append-message, claim-update) answer outcomes of their own.
local MESSAGE = {
  NOT_DUE = 0,
  APPENDED = 1,
  DUPLICATE = 2,
  NOT_FOUND = -1,
  FINISHED = -7,
  SLOT_MOVED = -8,
  PARKED = -9,
  AFTER_FINAL = -10,
  OTHER_FINAL = -11,
}

-- load-slice answers whether the caller's held context is current or the context is included.
local CONTEXT = {HELD = 0, INCLUDED = 1}
