--- @include "lcState"
--- @include "lcBatch"
-- THE READY LIST (data format 3, docs/data-format.md): a queue's runnable jobs are in two
-- places, both in line by score (band * BAND + seq):
--   queued     zset: every job that does not go to `ready` (other bands, keyed jobs, a job back
--              at a place it kept: a requeue, a redrive, a line's release)
--   ready      list of ids: jobs of the normal band without a concurrency key that entered at a
--              FRESH place (a new seq: an enqueue, a retry, a delayed job come due). A list
--              entry costs ~100 B less than a zset entry (bench/probes/queuedMemory.ts). Its
--              entries' scores are their records' `qs`.
--   readygone  hash: id -> how many entries of `ready` are stale (the job left `ready` without
--              being popped: a cancel, a dedupe's move, a removal); field '' -> their total. The
--              key exists only while some are stale.
-- THE RULE (lcReadyFits, enforced by lcEnterQueued): a job goes to the back of `ready` only when
-- its place is above the list's tail, so the list stays in score order with no read. A fresh
-- seq is above every place any earlier call gave (the seq only grows), so the tail needs no
-- read: only this call's own pushes (LC.readyTail). Any other job goes to `queued`.
-- THE CLAIM (include/lcTakeQueued.lua) merges the two heads by score: the same order a single
-- zset gave, so the MemoryStore (one ordered line) needs no twin of this.
-- A LEAVE (include/lcLeave.lua) of a job in `ready` marks its entry stale in O(1) (an LREM near
-- the back of a 1M list costs ~10 ms); the claim drops stale entries as it reaches them. So
-- `ready` may hold an id twice (a stale entry, then the job's own after it re-entered): the stale
-- one is always the earlier, and each pop of a marked id takes one mark.
-- COUNTS: queued = ZCARD queued + LLEN ready - readygone[''] (src/store/redis/listJobs.ts).

-- The places of the normal band (2: a job without `pr`).
local READY_LO, READY_HI = 2 * BAND, 3 * BAND

-- THE RULE (see above): `fresh` is the place just made from a new seq (nil: a kept place).
local function lcReadyFits(fresh)
  return fresh ~= nil and fresh >= READY_LO and fresh < READY_HI and fresh > LC.readyTail
end

-- Job `id` left queued and is in no other index (lcLeave checked): its entry in `ready` is stale.
-- An empty `ready` holds no entry of it (a record in no index at all: nothing to mark).
local function lcReadyGone(id)
  local kp = LC.kp
  if redis.call('LLEN', kp .. 'ready') == 0 then return end
  redis.call('HINCRBY', kp .. 'readygone', id, 1)
  redis.call('HINCRBY', kp .. 'readygone', '', 1)
end

-- Whether the entry of `id` just taken from `ready` is stale; if so its mark is taken off. Called
-- only while readygone exists (the caller's EXISTS, once per take).
local function lcReadyStale(id)
  local gk = LC.kp .. 'readygone'
  local n = tonumber(redis.call('HGET', gk, id))
  if not n then return false end
  if n <= 1 then redis.call('HDEL', gk, id) else redis.call('HINCRBY', gk, id, -1) end
  if redis.call('HINCRBY', gk, '', -1) <= 0 then redis.call('DEL', gk) end
  return true
end
