-- THE KEY GATE: what holds back one concurrency key on its own (docs/flow-control.md), beside its
-- slots (lcFlow.lua). Keys, under the queue's prefix:
--   flow      hash: krate, kratePer, krateBurst, krateMode ('skip'; absent: wait): the key
--             throttle, one GCRA per key; keyGate ('1' while any key throttle, key hold or
--             paused key exists: a claim looks at a job's key only then, so a queue without
--             them pays nothing per job)
--   ktat      hash: key -> its GCRA state (theoretical arrival time, store ms); also THE KEY
--             HOLD of a RateLimitedError from a job of that key (pushed forward, never back)
--   kdue      zset: keys with jobs waiting in their line for their rate, by the time the rate
--             lets the next start; the claim's start puts their line back then, and its next-due
--             time includes the first, so an idle supervisor wakes for it (no polling)
--   kpaused   set: the paused keys (keyPause-3.lua)
-- INVARIANTS (with lcFlow.lua's): a job held back by its key's rate or pause is in ckwait:<key>,
-- queued, holding no slot and no attempt; a key whose line waits for its rate is in kdue (a line
-- that waits for a slot is put back by lcFreeSlot; a paused key's by its resume).
--- @include "lcKeyGateMark"
--- @include "lcFlow"
--- @include "lcGcra"
local KG = { g = { T = 0, tau = 0, rated = false }, skip = false }

-- The key throttle as `flow` holds it (nil: none; a hold alone still applies, T = tau = 0).
local function lcKeyGateInit(krate, kper, kburst, kmode)
  if krate then KG.g = lcGcraOf(krate, kper, kburst) end
  KG.skip = kmode == 'skip'
end

-- Key `ck` may start one job now: nil, its GCRA spent. Else the time (ms) it may start one.
local function lcKeyRateAt(ck, now)
  return lcGcraAt(LC.kp .. 'ktat', ck, now, KG.g, true)
end

-- Key `ck`'s line waits for its rate until `at`: into kdue (only ever earlier).
local function lcKeyDue(ck, at)
  lcDueAt(LC.kp .. 'kdue', ck, at)
end

-- THE KEY HOLD (a RateLimitedError from a job of key `ck`): no job of the key starts for holdMs,
-- then at the key's rate (no burst at once), as the queue's hold (commit-12.lua's holdStarts).
local function lcHoldKey(ck, holdMs, now)
  local untilT = now + holdMs + KG.g.tau
  local kt = tonumber(redis.call('HGET', LC.kp .. 'ktat', ck))
  if not kt or untilT > kt then redis.call('HSET', LC.kp .. 'ktat', ck, string.format('%.3f', untilT)) end
  redis.call('HSET', LC.kp .. 'flow', 'keyGate', '1')
end

-- The keys whose rate now allows: the head of each line goes back into `queued` at its place, as
-- many as the key's GCRA allows now (all of a hold's line); a longer line is due again when
-- those would have spent the rate. A paused key's line stays (its resume puts it back).
local function lcReleaseDueKeys(now)
  local kp = LC.kp
  for _, ck in ipairs(redis.call('ZRANGEBYSCORE', kp .. 'kdue', '-inf', now, 'LIMIT', 0, 100)) do
    redis.call('ZREM', kp .. 'kdue', ck)
    if redis.call('SISMEMBER', kp .. 'kpaused', ck) == 0 then
      local wk = kp .. 'ckwait:' .. ck
      local n, again = lcGcraRoom(kp .. 'ktat', ck, now, KG.g)
      local heads = redis.call('ZPOPMIN', wk, n)
      for i = 1, #heads, 2 do lcEnterQueued(heads[i], heads[i + 1], ck) end
      if redis.call('EXISTS', wk) == 1 then
        if again then lcKeyDue(ck, again) end
      elseif redis.call('EXISTS', kp .. 'ck:' .. ck) == 0 then
        -- Its line is empty: the key leaves ckkeys (include/lcFlow.lua).
        redis.call('SREM', kp .. 'ckkeys', ck)
      end
    end
  end
  -- The claim pops `queued` next: what entered lands first.
  lcFlushIndexes()
end
