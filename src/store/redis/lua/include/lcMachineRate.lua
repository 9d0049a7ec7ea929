--- @include "lcState"
--- @include "lcFlow"
--- @include "lcGcra"
-- THE MACHINE THROTTLE: one GCRA per machine of a queue (docs/flow-control.md), beside the
-- machine gates' slots (lcGate.lua). Keys, under the queue's prefix:
--   mgates          hash: 'r:<machine>' -> the machine's throttle, 'limit:perMs:burst[:skip]'
--                   (flow-3.lua writes it; `mrated` in `flow` is '1' while one exists, so a
--                   claim looks at a job's machine rate only then)
--   mtat            hash: machine -> its GCRA state (lcGcra.lua)
--   mdue            zset: machines whose rate line waits, by when their rate allows a start;
--                   the claim's start puts their lines back then, and its next-due time
--                   includes the first, so an idle supervisor wakes for it (no polling)
--   gwait:r:<machine> zset: ITS RATE LINE, by place: a machine gate's line under gate id
--                   'r:<machine>' (in gkeys while it may exist), so it is listed, counted and
--                   left (cancel, removal) as every gate's line is (lcGate.lua); no job ever
--                   holds a slot of an 'r:' gate
-- INVARIANTS: a job over its machine's rate is in gwait:r:<machine>, queued, holding no slot and
-- no attempt; a machine with a rate line is in mdue until the line is empty (a change of the
-- limits puts every gate line back and clears mdue, flow-3.lua).

-- The throttle of machine `m` (nil: none), read once per machine per call.
local lcMachineRateCache = {}
local function lcMachineRate(m)
  local c = lcMachineRateCache[m]
  if c == nil then
    local spec = redis.call('HGET', LC.kp .. 'mgates', 'r:' .. m)
    c = false
    if spec then
      local limit, per, burst, mode = string.match(spec, '^(%d+):(%d+):(%d+):?(%a*)$')
      if limit then
        c = lcGcraOf(limit, per, burst)
        c.skip = mode == 'skip'
      end
    end
    lcMachineRateCache[m] = c
  end
  return c or nil
end

-- Machine `m` may start one job now (nil), given its throttle `g`; else the time it may. With
-- `spend`, the start is spent (the claim spends it only once the job's other gates let it start).
local function lcMachineRateAt(m, now, g, spend)
  return lcGcraAt(LC.kp .. 'mtat', m, now, g, spend)
end

-- Job `id` of machine `m` is over its machine's rate until `at`: into the machine's rate line at
-- `score` (its place), the machine due then.
local function lcMachineRateWait(id, m, score, at)
  local kp = LC.kp
  redis.call('ZADD', kp .. 'gwait:r:' .. m, score, id)
  redis.call('SADD', kp .. 'gkeys', 'r:' .. m)
  lcDueAt(kp .. 'mdue', m, at)
end

-- The machines whose rate now allows: the heads of each rate line go back into `queued` at their
-- places, as many as the machine's GCRA allows now; a longer line is due again after them.
local function lcReleaseDueMachines(now)
  local kp = LC.kp
  for _, m in ipairs(redis.call('ZRANGEBYSCORE', kp .. 'mdue', '-inf', now, 'LIMIT', 0, 100)) do
    redis.call('ZREM', kp .. 'mdue', m)
    local wk = kp .. 'gwait:r:' .. m
    local g = lcMachineRate(m) or { T = 0, tau = 0, rated = false }
    local n, again = lcGcraRoom(kp .. 'mtat', m, now, g)
    local heads = redis.call('ZPOPMIN', wk, n)
    for i = 1, #heads, 2 do
      lcEnterQueued(heads[i], heads[i + 1], lcRR() and redis.call('HGET', kp .. 'job:' .. heads[i], 'ck') or nil)
    end
    if redis.call('EXISTS', wk) == 1 then
      if again then lcDueAt(kp .. 'mdue', m, again) end
    else
      redis.call('SREM', kp .. 'gkeys', 'r:' .. m)
    end
  end
  lcFlushIndexes()
end
