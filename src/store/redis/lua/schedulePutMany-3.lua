--[[ schedulePutMany: the schedule loop's writes of one claim, each its own compare-and-set
(include putSchedule; schedulePut-3.lua writes one): one round trip for a claim's schedules.
KEYS[1] defs hash  KEYS[2] revs hash  KEYS[3] due zset
ARGV[1] count n, then 4 per write: id, body, due ms or '', expected revision ('' any, '0' absent)
Returns one entry per write: the new revision, or false when that schedule's revision differed
(that write is skipped; the others are made).
Errors: BAD_SCHEDULE <index> <why> when an argument is malformed (nothing written: all are
checked before the first write).
]]
--- @include "putSchedule"
local defsKey, revsKey, dueKey = KEYS[1], KEYS[2], KEYS[3]
local n = tonumber(ARGV[1])
if not n or n < 0 or n % 1 ~= 0 or #ARGV ~= 1 + n * 4 then
  return redis.error_reply('BAD_SCHEDULE 0 bad count')
end
local dues = {}
for i = 0, n - 1 do
  local b = 2 + i * 4
  if ARGV[b] == '' or ARGV[b + 1] == '' then return redis.error_reply('BAD_SCHEDULE ' .. i .. ' id or body missing') end
  if ARGV[b + 2] ~= '' then
    local d = tonumber(ARGV[b + 2])
    if not d or d ~= d or d < 0 or d == math.huge then return redis.error_reply('BAD_SCHEDULE ' .. i .. ' due time') end
    dues[i] = d
  end
end
local out = {}
for i = 0, n - 1 do
  local b = 2 + i * 4
  out[i + 1] = putSchedule(defsKey, revsKey, dueKey, ARGV[b], ARGV[b + 1], dues[i], ARGV[b + 3])
end
return out
