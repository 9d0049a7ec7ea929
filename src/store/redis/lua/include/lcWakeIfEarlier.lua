--- @include "lcState"
-- An idle supervisor sleeps until the earliest `delayed` entry it saw: one that comes earlier
-- must wake it, or a retry or timer due sooner would wait out the sleep.
local function lcWakeIfEarlier(runAt)
  local first = redis.call('ZRANGE', LC.kp .. 'delayed', 0, 0, 'WITHSCORES')
  if not first[2] or runAt < tonumber(first[2]) then LC.wake = true end
end
