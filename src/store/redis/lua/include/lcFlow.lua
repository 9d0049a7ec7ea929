--- @include "lcState"
--- @include "lcBatch"
--- @include "lcReady"
-- THE FLOW GATE's slots (src/store/roles/FlowControl.ts, docs/flow-control.md). Keys, all under
-- the queue's prefix (its hash tag):
--   flow            hash: paused ('1'), total, perKey (absent: no limit); the throttle's rate,
--                   ratePer, rateBurst and its GCRA state tat (commit-12.lua's claim); the
--                   strategy for a full key (absent: queue); keyed ('1': a job had a key);
--                   byRun ('1': limits were set at run time; a definition's are not written,
--                   flow-3.lua); tat is also THE HOLD of a RateLimitedError (commit-12.lua)
--   ck:<key>        set: the ids of the RUNNING (loading/working) jobs of concurrency key <key>,
--                   kept ONLY while `perKey` is set (THE SLOTS: nothing else reads them)
--   ckwait:<key>    zset: THE KEY'S LINE: jobs of <key> set aside by a claim because the key
--                   was full, over its rate or held (lcKeyGate.lua), or paused, scored by their
--                   place in `queued` (their `qs`), so they go back where they were
--   ckkeys          set: the keys that may have a line: every key with a ckwait: key is in it
--                   (added as a job is set aside); a key leaves when its line is found empty
--                   (lcFreeSlot, lcReleaseDueKeys, keyPause-3.lua, flow-3.lua) and it holds no
--                   slot. The limits view lists these, the paused keys and the running jobs' keys.
-- INVARIANTS:
--   - While `perKey` is set, a job is in ck:<key> exactly while it is loading or working: added
--     by the claim (commit-12.lua), removed ONLY here (lcFreeSlot, from lcLeave and the plain
--     done), whatever the job leaves for: done, failed, cancelled, retried, parked, or requeued by
--     the reaper once its dead worker's lease passed. Membership, not a counter: a repeated add or
--     removal cannot drift. While `perKey` is not set, no ck:<key> exists: a keyed job of a queue
--     with no per-key limit pays no slot (the claim adds none, lcFreeSlot's SREM finds none and
--     stops there). flow-3.lua keeps this across a change, in the same atomic call: setting
--     perKey REBUILDS the sets from the running jobs (`active`, each one's `ck`: bounded by the
--     number running); clearing it deletes them.
--   - The total is the size of `active` (every running job is there and nothing else is), so
--     it needs no holder set of its own.
--   - A job in ckwait:<key> has status queued and is in neither `queued` nor `delayed` (it is
--     counted and listed as queued: redis/listJobs.ts reads the lines); each slot of <key> that
--     frees puts the head of ckwait:<key> back into `queued`; so do the key's rate (kdue, at the
--     claim's start), its resume (keyPause-3.lua) and any change of the limits (flow-3.lua). A
--     job put back that still may not start is set aside again by the claim: a line is never
--     stranded while one of these is pending for it.
--   - The key gate (rate, hold, pause: include/lcKeyGate.lua) never holds a slot: only the claim
--     adds to ck:<key>, only lcFreeSlot removes.
--   - The machine gates (include/lcGate.lua) keep their slots the same way, in gh:<gate> and
--     gwait:<gate>: added by the claim, freed only by lcFreeGate, from lcLeave.

-- THE ROUND ROBIN BETWEEN KEYS (`fairness` 'roundRobin' in `flow`, docs/flow-control.md):
--   rrq             hash: key -> how many of its jobs are in `queued` (the key's HEADS), kept
--                   only while fairness is roundRobin (flow-3.lua deletes it when that changes)
-- INVARIANTS: on such a queue a keyed job is in `queued` only as one of its key's heads (at
-- most perKey, else 1); the others wait in ckwait:<key> (THE KEY'S LINE, by their place). rrq
-- never counts more than the key's jobs in `queued` (a job counted enters `queued` in
-- lcEnterQueued and every exit takes it off: the claim's pops, lcLeave): a count too high would
-- strand the line, one too low (jobs queued before the option was set) only lets a key have
-- more heads for a while. When a head leaves `queued`, the key's next job enters at the BACK of
-- its priority band (lcHeadLeft), so keys alternate.

-- Whether the queue is roundRobin (commit-12.lua sets it from its one read of `flow`; another
-- script reads it once per call, and only when a keyed job enters or leaves `queued`).
local function lcRR()
  if LC.rr == nil then
    local f, pk = unpack(redis.call('HMGET', LC.kp .. 'flow', 'fairness', 'perKey'))
    LC.rr = f == 'roundRobin'
    LC.rrHeads = tonumber(pk) or 1
  end
  return LC.rr
end

-- EVERY JOB ENTERS `queued` HERE (FlowLines.enterQueued in a MemoryStore), at `score`;
-- `ck` its concurrency key (nil: none); `fresh`: the place as a number when it was just made
-- from a new seq (nil: a kept place). THE RULE: on a roundRobin queue, a keyed job whose key
-- already has its heads in `queued` goes to the key's line instead (at `score`, its place), and
-- enters when a head leaves. A job already in `queued` only changes place.
-- THE READY LIST's RULE (include/lcReady.lua), enforced here: a job without a key goes to the
-- back of `ready` only when its fresh place is in the normal band and above the list's tail;
-- any other to the zset.
local function lcEnterQueued(id, score, ck, fresh)
  LC.wake = true
  if not ck then
    if lcReadyFits(fresh) then
      LC.readyTail = fresh
      return lcReadyPush(id)
    end
    return lcIndex('queued', score, id)
  end
  if not lcRR() then return lcIndex('queued', score, id) end
  lcFlushIndexes()
  local kp = LC.kp
  if redis.call('ZSCORE', kp .. 'queued', id) then
    redis.call('ZADD', kp .. 'queued', score, id)
    return
  end
  redis.call('ZREM', kp .. 'ckwait:' .. ck, id)
  if (tonumber(redis.call('HGET', kp .. 'rrq', ck)) or 0) >= LC.rrHeads then
    redis.call('ZADD', kp .. 'ckwait:' .. ck, score, id)
    redis.call('SADD', kp .. 'ckkeys', ck)
    return
  end
  redis.call('HINCRBY', kp .. 'rrq', ck, 1)
  redis.call('ZADD', kp .. 'queued', score, id)
end

-- A head of key `ck` left `queued` (a roundRobin queue only). `promote`: the key's next job
-- enters at the back of its priority band; false when the head itself was set aside in the
-- key's line (the key is full, over its rate or paused: what frees it releases the line).
local function lcHeadLeft(ck, promote)
  local kp = LC.kp
  if redis.call('HINCRBY', kp .. 'rrq', ck, -1) <= 0 then redis.call('HDEL', kp .. 'rrq', ck) end
  if not promote then return end
  local head = redis.call('ZPOPMIN', kp .. 'ckwait:' .. ck)
  if not head[1] then return end
  local pr = tonumber(redis.call('HGET', kp .. 'job:' .. head[1], 'pr')) or 2
  lcEnterQueued(head[1], pr * BAND + redis.call('HINCRBY', kp .. 'meta', 'seq', 1), ck)
  if redis.call('EXISTS', kp .. 'ckwait:' .. ck) == 0 and redis.call('EXISTS', kp .. 'ck:' .. ck) == 0 then
    redis.call('SREM', kp .. 'ckkeys', ck)
  end
end

-- Key `ck`'s line goes back into `queued` at its places (a resume, a change of the limits): the
-- whole line, or on a roundRobin queue as many as the key may have heads (the rest follow as
-- heads leave). Its key stays in ckkeys while its line or its slots exist.
local function lcReleaseLine(ck)
  local kp = LC.kp
  local wk = kp .. 'ckwait:' .. ck
  if lcRR() then
    local room = LC.rrHeads - (tonumber(redis.call('HGET', kp .. 'rrq', ck)) or 0)
    if room > 0 then
      local heads = redis.call('ZPOPMIN', wk, room)
      for i = 1, #heads, 2 do lcEnterQueued(heads[i], tonumber(heads[i + 1]), ck) end
    end
  elseif redis.call('EXISTS', wk) == 1 then
    lcFlushIndexes()
    redis.call('ZUNIONSTORE', kp .. 'queued', 2, kp .. 'queued', wk, 'AGGREGATE', 'MIN')
    redis.call('DEL', wk)
  end
  if redis.call('EXISTS', wk) == 0 and redis.call('EXISTS', kp .. 'ck:' .. ck) == 0 then
    redis.call('SREM', kp .. 'ckkeys', ck)
  end
end

-- A head whose record vanished (an eviction, an operator's DEL: the claim found no record) left
-- `queued`: its key is on the record only, so no count can be taken off, and a count too high
-- STRANDS ITS KEY'S LINE for good. So the head counts start afresh and every key's line puts its
-- heads in, as a change of the fairness does (flow-3.lua): a count too low only lets a key have
-- more heads for a while. Cost: the keys with a line, at a fault only (once per claim call).
local function lcHeadsAfresh()
  if LC.afresh then return end
  LC.afresh = true
  redis.call('DEL', LC.kp .. 'rrq')
  for _, ck in ipairs(redis.call('SMEMBERS', LC.kp .. 'ckkeys')) do lcReleaseLine(ck) end
end

-- Job `id` of key `ck` stopped running: its slot frees, and the first job waiting for one
-- goes back in line (the claim sets it aside again if the key filled meanwhile).
-- A job that held no slot (no perKey: no sets are kept) costs the one SREM, or nothing when the
-- script knows perKey is not set (LC.slots, include/lcState.lua).
local function lcFreeSlot(id, ck)
  local kp = LC.kp
  if not LC.slots or redis.call('SREM', kp .. 'ck:' .. ck, id) == 0 then return end
  local head = redis.call('ZPOPMIN', kp .. 'ckwait:' .. ck)
  if head[1] then
    lcEnterQueued(head[1], head[2], ck)
    if redis.call('EXISTS', kp .. 'ckwait:' .. ck) == 0 then redis.call('SREM', kp .. 'ckkeys', ck) end
  end
end

-- A queued job of key `ck` that leaves queued (claimed, cancelled): out of its key's waiting line.
local function lcLeaveKeyWait(id, ck)
  redis.call('ZREM', LC.kp .. 'ckwait:' .. ck, id)
end

-- The first due time in the zset LC.kp .. `index` (false: none): a key's rate line ('kdue',
-- lcKeyGate.lua) or a machine's ('mdue', lcMachineRate.lua), which the claim's next-due time
-- takes in so an idle supervisor wakes for it.
local function lcFirstDue(index)
  local f = redis.call('ZRANGE', LC.kp .. index, 0, 0, 'WITHSCORES')
  return f[2] and tonumber(f[2]) or false
end
