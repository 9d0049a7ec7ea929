--[[ scheduleWake: makes schedules due now, because something they wait for happened (the job
that a schedule's buffered ticks wait behind ended, ScheduleLoop.ts): the next claim takes them.
KEYS[1] due zset  KEYS[2] defs hash
ARGV[1..n] schedule ids
Returns how many were made due earlier. Only a schedule due later is moved: one paused or ended
(not in the zset) stays out of the claims, one due already stays as it is. A schedule held by a
claim's lease comes due too: its holder's compare-and-set and the tick ids keep that harmless.
]]
--- @include "nowMs"
local dueKey, defsKey = KEYS[1], KEYS[2]
local now = nowMs()
local moved = 0
for _, id in ipairs(ARGV) do
  local due = redis.call('ZSCORE', dueKey, id)
  if due and tonumber(due) > now and redis.call('HEXISTS', defsKey, id) == 1 then
    redis.call('ZADD', dueKey, now, id)
    moved = moved + 1
  end
end
return moved
