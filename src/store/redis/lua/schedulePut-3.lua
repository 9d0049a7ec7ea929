--[[ schedulePut: writes one schedule if its revision is the one the writer read (roles/Schedules.ts).
KEYS[1] defs hash (id -> body)  KEYS[2] revs hash (id -> revision)  KEYS[3] due zset (id -> ms)
ARGV[1] id, ARGV[2] body (JSON text, opaque here), ARGV[3] due ms or '' (not due: paused, ended),
ARGV[4] expected revision: '' any, '0' only if absent, else that revision
Returns the new revision, or false when the revision differed (THE COMPARE-AND-SET: nothing is
written; the supervisor or client that lost re-reads).
Errors: BAD_SCHEDULE <why> when an argument is malformed (nothing written).
]]
--- @include "putSchedule"
local defsKey, revsKey, dueKey = KEYS[1], KEYS[2], KEYS[3]
local id, body, due, expected = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
if id == nil or id == '' or body == nil or body == '' or expected == nil then
  return redis.error_reply('BAD_SCHEDULE id or body missing')
end
local dueMs = nil
if due ~= '' then
  dueMs = tonumber(due)
  if not dueMs or dueMs ~= dueMs or dueMs < 0 or dueMs == math.huge then
    return redis.error_reply('BAD_SCHEDULE due time')
  end
end
return putSchedule(defsKey, revsKey, dueKey, id, body, dueMs, expected)
