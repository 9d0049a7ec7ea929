--[[ schedulePut: writes schedules, each if its revision is the one its writer read (THE
COMPARE-AND-SET, roles/Schedules.ts): a client's one write, or the schedule loop's writes of a
whole claim in one round trip.
KEYS[1] defs hash (id -> body)  KEYS[2] revs hash (id -> revision)  KEYS[3] due zset (id -> ms)
KEYS[4] state hash (id -> state)
ARGV[1] the schedules' key prefix ("<prefix>:{~schedules}:"; each one's recent actions are the
list <prefix>recent:<id>, under the same hash tag), ARGV[2] how many actions a schedule keeps,
ARGV[3] count n, then per write:
  id, body ('' keeps the stored one), due ms or '' (not due: paused, ended), expected revision
  ('' any, '0' only if absent), state ('' none: the body is the whole schedule), k, then k
  action texts appended to its recent list
Returns one entry per write: the new revision, or false when that schedule's revision differed
(that write is skipped, the others are made; the writer that lost re-reads).
Errors: BAD_SCHEDULE <index> <why> when an argument is malformed (nothing written: all are
checked before the first write).
]]
--- @include "putSchedule"
local defsKey, revsKey, dueKey, stateKey = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local base, kept, n = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
if not base or base == '' or not kept or kept < 1 or not n or n < 0 or n % 1 ~= 0 then
  return redis.error_reply('BAD_SCHEDULE 0 bad prefix, kept or count')
end
local writes = {}
local b = 4
for i = 0, n - 1 do
  local id, body, due, expected, state, k = ARGV[b], ARGV[b + 1], ARGV[b + 2], ARGV[b + 3], ARGV[b + 4], tonumber(ARGV[b + 5])
  if not id or id == '' or not k or k < 0 or k % 1 ~= 0 or b + 5 + k > #ARGV then
    return redis.error_reply('BAD_SCHEDULE ' .. i .. ' id missing or bad action count')
  end
  -- A write that keeps the body carries a state and names a revision it read.
  if body == '' and (state == '' or expected == '' or expected == '0') then
    return redis.error_reply('BAD_SCHEDULE ' .. i .. ' body missing')
  end
  local dueMs = nil
  if due ~= '' then
    dueMs = tonumber(due)
    if not dueMs or dueMs ~= dueMs or dueMs < 0 or dueMs == math.huge then
      return redis.error_reply('BAD_SCHEDULE ' .. i .. ' due time')
    end
  end
  writes[i + 1] = { id, body ~= '' and body, dueMs, expected, state ~= '' and state, b + 6, b + 5 + k }
  b = b + 6 + k
end
if b ~= #ARGV + 1 then return redis.error_reply('BAD_SCHEDULE 0 bad count') end
local out = {}
for i, w in ipairs(writes) do
  out[i] = putSchedule(defsKey, revsKey, dueKey, stateKey, base .. 'recent:' .. w[1], w[1], w[2], w[3], w[4], w[5], w[6], w[7], kept)
end
return out
