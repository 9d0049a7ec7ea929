--- @include "lcState"
--- @include "lcBatch"
-- The indexes a job of status `st` is listed in (all of them: ZREM of a non-member is free).
local function lcLeave(j)
  local st, id = j.st, j.id
  if st == 'queued' then
    if not j.popped then lcRemove('queued', id); lcRemove('delayed', id) end
  elseif st == 'loading' or st == 'working' then lcRemove('active', id)
  elseif st == 'waiting' then lcRemove('waiting', id); lcRemove('delayed', id)
  elseif st == 'failed' then
    lcRemove('failed', id); lcRemove('dead', id); lcRemove('broken', id)
    redis.call('HDEL', LC.kp .. 'brokenwhy', id)
  elseif st == 'done' or st == 'cancelled' then lcRemove(st, id)
  end
end
