--- @include "lcState"
--- @include "lcBatch"
-- A job whose record cannot run (missing, no machine) is set aside in `broken` with the reason.
local function lcSetBroken(id, why)
  lcIndex('broken', LC.now, id)
  redis.call('HSET', LC.kp .. 'brokenwhy', id, why)
  lcTell(id, 'broken', 'failed')
end
