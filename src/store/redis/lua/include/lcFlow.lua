--- @include "lcState"
--- @include "lcBatch"
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

-- Job `id` of key `ck` stopped running: its slot frees, and the first job waiting for one
-- goes back in line (the claim sets it aside again if the key filled meanwhile).
-- A job that held no slot (no perKey: no sets are kept) costs the one SREM, or nothing when the
-- script knows perKey is not set (LC.slots, include/lcState.lua).
local function lcFreeSlot(id, ck)
  local kp = LC.kp
  if not LC.slots or redis.call('SREM', kp .. 'ck:' .. ck, id) == 0 then return end
  local head = redis.call('ZPOPMIN', kp .. 'ckwait:' .. ck)
  if head[1] then
    lcIndex('queued', head[2], head[1])
    LC.wake = true
    if redis.call('EXISTS', kp .. 'ckwait:' .. ck) == 0 then redis.call('SREM', kp .. 'ckkeys', ck) end
  end
end

-- A queued job of key `ck` that leaves queued (claimed, cancelled): out of its key's waiting line.
local function lcLeaveKeyWait(id, ck)
  redis.call('ZREM', LC.kp .. 'ckwait:' .. ck, id)
end
