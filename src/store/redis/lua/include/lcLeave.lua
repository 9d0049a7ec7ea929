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
    if j.popped then
      -- Taken by the claim: in no index now (a gate's line at most).
      if lcGated() then lcLeaveGateLines(id) end
    elseif j.ck then
      if lcRR() then
        -- A head of its key leaving (roundRobin, include/lcFlow.lua): the key's next enters.
        lcFlushIndexes()
        if redis.call('ZREM', LC.kp .. 'queued', id) == 1 then lcHeadLeft(j.ck, true) end
      else
        lcRemove('queued', id)
      end
      lcRemove('delayed', id)
      if lcGated() then lcLeaveGateLines(id) end
    else
      -- Without a key it may be in THE READY LIST (include/lcReady.lua), which has no cheap
      -- removal: it is there exactly when it is in none of `queued`, `delayed` and the gates'
      -- lines (this call's own index writes landed first, so none is pending), and then its
      -- entry is marked stale.
      lcFlushIndexes()
      local kp = LC.kp
      if redis.call('ZREM', kp .. 'queued', id) == 0 and redis.call('ZREM', kp .. 'delayed', id) == 0
          and not (lcGated() and lcLeaveGateLines(id)) then
        lcReadyGone(id)
      end
    end
    if j.ck then lcLeaveKeyWait(id, j.ck) end
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
