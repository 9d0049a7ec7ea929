--- @include "lcState"
--- @include "lcBatch"
--- @include "lcFlow"
--- @include "lcGate"
-- The indexes a job of status `st` is listed in (all of them: ZREM of a non-member is free).
-- A job with a concurrency key (`ck`) that stops running frees its slot HERE, and only here
-- (lcFlow.lua's invariants); so does a job holding a machine gate's slot (lcGate.lua).
local function lcLeave(j)
  local st, id = j.st, j.id
  if st == 'queued' then
    if not j.popped then
      if j.ck and lcRR() then
        -- A head of its key leaving (roundRobin, include/lcFlow.lua): the key's next enters.
        lcFlushIndexes()
        if redis.call('ZREM', LC.kp .. 'queued', id) == 1 then lcHeadLeft(j.ck, true) end
      else
        lcRemove('queued', id)
      end
      lcRemove('delayed', id)
    end
    if j.ck then lcLeaveKeyWait(id, j.ck) end
    if lcGated() then lcLeaveGateLines(id) end
  elseif st == 'loading' or st == 'working' then
    lcRemove('active', id)
    if j.ck then lcFreeSlot(id, j.ck) end
    if lcGated() then lcFreeGate(id) end
  elseif st == 'waiting' then lcRemove('waiting', id); lcRemove('delayed', id)
  elseif st == 'failed' then
    lcRemove('failed', id); lcRemove('dead', id); lcRemove('broken', id)
    redis.call('HDEL', LC.kp .. 'brokenwhy', id)
  elseif st == 'done' or st == 'cancelled' then lcRemove(st, id)
  end
end
