--- @include "lcState"
--- @include "lcRead"
--- @include "lcMove"
--- @include "lcLeave"
--- @include "lcBatch"
--- @include "numText"
--- @include "digitText"
--- @include "lcReady"
--- @include "redisCall"
-- THE DUE CLAIM: the claim's share of the due entries of `delayed` (backoff retries, delayed
-- enqueues, parked jobs whose wake time came), run by every claim (include/lcClaimJobs.lua).
--
-- AS MANY AS THE CLAIM TAKES: a claim takes at most `limit` due entries (its want, plus the jobs
-- a throttle of mode 'skip' ends), the earliest due first; the others stay in `delayed` for the
-- next claim, of this supervisor or another (lcDueLeft wakes one). One claim promoting 1,000 due
-- timers at once was ~8-9 ms of Redis work in a lump (bench/RESULTS.md, round five), a stall for
-- every other queue and claim. (MemoryStore's promoteDue takes as many: memory/commitOps.ts.)
--
-- THE PLACE IN LINE is the WAKE's, as before: behind the jobs waiting in the due job's band, in
-- due order (a fresh seq each, reserved for all `limit` at once).
--
-- STRAIGHT FROM `delayed`: a due job whose place comes before every job in `queued` is claimed
-- by this call whatever the order of the writes, so it is not written into `queued` to be popped
-- again: the WAKE (waiting -> queued, or a delayed queued job's new place) and the CLAIM (queued
-- -> loading | working) are made together by the claim's own write (lcClaim, `more`), in one
-- atomic call: the lifecycle's moves are unchanged (no reader can see the `queued` between them),
-- and the record ends as the two moves leave it (`qs` its new place, `ua` now, `ra` gone, out of
-- `waiting` and `delayed`). Only the jobs that come first in line are taken so (THE PREFIX: in
-- place order, up to the claim's want, none before them left to `queued`), and only jobs no gate
-- of the claim can set aside or end unrun (THE STRAIGHT RULE, lcDueStraight): so the claim takes
-- the same jobs in the same order as when every due job went into `queued` first. A queue whose
-- claim releases lines (key gate, machine throttle) or has machine gates takes none straight
-- (`straight` false): what those put in `queued` would need a place among the due jobs'.
-- A due entry whose job is neither queued nor parked (a stale one) only leaves `delayed`; a
-- due job whose cancel was requested is WAKEd, and the CANCEL GUARD (lcMove) ends it.

-- A DUE READ: an array, the fields a due job's claim takes, then what THE STRAIGHT RULE and the
-- WAKE need, by position (DUE_BOTH's order: an array, no named fields: a table of 30 named
-- fields a job cost ~35k instructions under callgrind in its resizes):
--    1 m, 2 in, 3 sn, 4 ls, 5 v, 6 ma, 7 a, 8 st, 9 lr, 10 par, 11 opt, 12 io, 13 pq, 14 ib,
--    15 rl, 16 cx, 17 pr, 18 rm, 19 ck (lcClaimJobs.lua takes 1-7 and 9-15).
-- A DUE READ is the HMGET's reply as Redis made it: its record's key (made once a job, each text
-- made costs Redis its hashing, ~13 instructions a byte under callgrind) and the place its claim
-- writes for the WAKE go in arrays of their own, beside it (a slot past a reply's end adds a
-- hash part to it: two such cost ~2.5k instructions a job under callgrind).
-- One read when the job is likely to be claimed straight (`queued` empty: lcDueReadKey), lcRead's
-- full read again for one that is not (its WAKE, lcMove); else lcRead's, and the claim's fields
-- for a job taken (DUE_CLAIM).
-- THE FIELDS ASKED, each one ~1.1-1.5k instructions under callgrind (its argument and its reply
-- element made, a look-up in the hash): `rm` only on a queue that may hold a minimal record,
-- `ck` only on one that may hold a job with a key (LC.minimal, LC.keyed: `rm` is asked with
-- `ck` on a keyed queue, to keep their places, and found on none of its jobs when not
-- LC.minimal). Not asked for the claim: `ct`, which the claim reads only to log a job whose log
-- is still implicit (a job claimed straight has its log written out, or a minimal record: THE
-- STRAIGHT RULE); `qs`, the place the job had (the WAKE writes the new one, a fresh seq, whatever
-- it was: lcMove's `fresh`); `ra`, the run-at that put it in `delayed`, which the WAKE deletes
-- (HDEL of a field that is not there changes nothing).
-- THE SHORT DUE READ: a parked job's record (`waiting`, its log written out) holds what a park
-- leaves (m, in, sn, ls, ra, ct, s, st, the log's entries) and ca, qs, tk, ua, unless it holds a
-- rare field; most due parked pipelines hold none. So the read asks those 8 (`ra`, `ct`, `s` in
-- the places of `v`, `ma`, `a`, only to be counted), then the record's field count (HLEN, O(1)):
-- when the 8 are there and the count is them, ca, qs, tk, ua and the log's entries (min(ls,
-- LOG_CAP): addLog drops the oldest past the cap), the record holds none of the others, which
-- the DUE READ then has absent. THE RULE this rests on (never to break): a `waiting` record holds
-- `ca` and `qs` (base fields, include/lcBare.lua) and `tk` and `ua` (every park writes both, and
-- has since the first data format: lcMove's move to `waiting`, the only one); one without them
-- could hide a rare field from the count. A field more of any kind (a progress, an error, a
-- version, `rm`, `ck`) only sends a record the long way: DUE_BOTH's read, after the short one.
-- That costs such a record ~21k instructions more than DUE_BOTH's read alone, so the first record
-- of a call that goes the long way ends THE SHORT DUE READ for the rest of the call (the jobs of
-- a claim are mostly alike): at most one such record a call.
-- Under callgrind (a due parked pipeline: 17 fields asked, 12 absent, in one HMGET before):
-- 28.4k -> 24.3k instructions a job for the read (a loop of 1,000 reads in one EVAL).
local DUE_BOTH = { 'm', 'in', 'sn', 'ls', 'v', 'ma', 'a', 'st', 'lr', 'par', 'opt', 'io', 'pq', 'ib', 'rl', 'cx', 'pr',
  'rm', 'ck' }
-- The claim's fields (1-7, 9-15): DUE_BOTH's but `st` and the WAKE's.
local DUE_CLAIM = { 'm', 'in', 'sn', 'ls', 'v', 'ma', 'a', 'lr', 'par', 'opt', 'io', 'pq', 'ib', 'rl' }
-- THE SHORT DUE READ, until a record of this call goes the long way; its field count by the `ls`
-- text (false: not a count), made once per call.
local dueShort, dueShortLen = true, {}

-- The DUE READ of the record at `jk` (`asked`: 17, 18 or 19 of DUE_BOTH; see THE FIELDS ASKED),
-- short when it can be (THE SHORT DUE READ).
local function lcDueReadKey(jk, asked)
  if dueShort then
    local r = redisCall('HMGET', jk, 'm', 'in', 'sn', 'ls', 'ra', 'ct', 's', 'st')
    local ls = r[4]
    if ls and r[8] == 'waiting' and r[1] and r[2] and r[3] and r[5] and r[6] and r[7] then
      local n = dueShortLen[ls]
      if n == nil then
        n = tonumber(ls)
        if n then n = 12 + (n < LOG_CAP and n or LOG_CAP) else n = false end
        dueShortLen[ls] = n
      end
      if n and redisCall('HLEN', jk) == n then
        -- No `v`, `ma` or `a` (the count says so): their places held `ra`, `ct` and `s`.
        r[5], r[6], r[7] = false, false, false
        return r
      end
    end
    dueShort = false
  end
  return redisCall('HMGET', jk, unpack(DUE_BOTH, 1, asked))
end

-- A DUE READ from lcRead's record `j` (the claim's fields not read yet: 1-3, 5-7, 11-13, 15 false).
local function lcDueRead(j)
  local f = false
  return { f, f, f, j.ls or f, f, f, f, j.st or f, j.lr or f, j.par or f, f, f, f, j.ib or f, f, j.cx or f, j.pr or f,
    j.rm or f, j.ck or f, j = j }
end

-- THE STRAIGHT RULE, on a DUE READ: the claim's loop would start the job for sure, none of its
-- gates set it aside or ends it: it has a record and a machine, no concurrency key (its key's
-- slots, line, rate or pause), no parent on this queue (which may be gone: the claim ends such a
-- child cancelled), no cancel requested, and a log written out already or a minimal record (the
-- WAKE of a job whose log is still implicit writes it out: include/addLog.lua). Machine gates and
-- throttles are the caller's `straight`.
local function lcDueStraight(r)
  return r[1] and not r[19] and not r[16] and (r[4] or (LC.minimal and r[18]))
    and not (r[10] and (not r[13] or r[13] == ''))
end

-- A lower bound of the line's first place (nil: the line is empty): `queued`'s head, and while
-- THE READY LIST (include/lcReady.lua) holds entries, the normal band's lowest place, below every
-- entry it can hold (its entries' places are not read: a due job of the normal band has a fresh
-- seq, behind them all, so it never goes straight past a list that is not empty; a stale entry
-- only sends it the longer way, through the line). And the list's length as read (its LLEN).
local function lcQueuedHead()
  local head = redis.call('ZRANGE', LC.kp .. 'queued', '0', '0', 'WITHSCORES')
  local z = head[2] and tonumber(head[2]) or nil
  local listed = redis.call('LLEN', LC.kp .. 'ready')
  if listed > 0 and (z == nil or z > READY_LO) then return READY_LO, listed end
  return z, listed
end

-- Takes the claim's share of the due entries (`limit` at most; `want`: the claim's want; `straight`:
-- the queue allows THE DUE CLAIM). Returns the jobs to claim straight, in line order: their ids and
-- their DUE READs, left `waiting` and `delayed` already; or nil, none. Fourth and fifth, their
-- records' keys and the places their claim writes (as text), in the same order. Every other due job is in
-- `queued` (flushed). Third, THE LIST'S LENGTH HANDED OVER: whether THE READY LIST is empty, as
-- lcQueuedHead read it, for the claim's first take (lcTakeQueued's `listed`): 0, a number above
-- 0 (the list is not empty: nothing here pops it), or nil when not read, or when it was empty and
-- a due job moved into the line may have entered it since.
local function lcClaimDue(limit, want, straight)
  local kp = LC.kp
  local kDelayed = kp .. 'delayed'
  -- Numbers as text (numText.lua): each number sent is formatted with "%.17g" (~4k instructions).
  local due = redis.call('ZRANGEBYSCORE', kDelayed, '-inf', lcNowText(), 'LIMIT', '0', numText(limit))
  local n = #due
  if n == 0 then return nil end
  local seq = redis.call('HINCRBY', kp .. 'meta', 'seq', numText(n)) - n
  local head, listed = nil, nil
  if straight then head, listed = lcQueuedHead() end
  local both = straight and not head
  -- THE FIELDS ASKED (see the DUE READ).
  local asked = LC.keyed and 19 or LC.minimal and 18 or 17
  -- Per due job (by its index in `due`): its DUE READ, its place; `order`: the indexes in place
  -- order (bands apart, the due order).
  local reads, keys, scores, order, mixed = {}, {}, {}, {}, false
  for i = 1, n do
    local r, jk
    if both then
      jk = kp .. 'job:' .. due[i]
      r = lcDueReadKey(jk, asked)
    else
      local j = lcRead(due[i], true)
      jk = j.jk
      r = lcDueRead(j)
    end
    -- No `pr`: the normal band (see enqueue-5.lua).
    local band = r[17] and tonumber(r[17]) or 2
    if band ~= 2 then mixed = true end
    reads[i], keys[i], scores[i], order[i] = r, jk, band * BAND + seq + i, i
  end
  if mixed then table.sort(order, function(a, b) return scores[a] < scores[b] end) end
  -- THE PLACES' TEXT: a place taken straight as text, made as THE TOKENS' TEXT is
  -- (lcClaimJobs.lua): the head, its place div 10, once per ten places, and its last digit
  -- (numText per job was a string.format, ~2k instructions under callgrind).
  local tensOf, tensText = -1, nil
  -- THE PREFIX: open while every job before in line was taken straight. `leaving`: lcLeave's
  -- argument for a job taken straight, one table for all.
  local open, moved, rest, ids, taken, leaving = straight, false, {}, {}, {}, { id = false, st = false }
  local nIds, takenKeys, takenPlaces = 0, {}, {}
  for k = 1, n do
    local i = order[k]
    local id, r = due[i], reads[i]
    local st = r[8]
    local straightNow = false
    if st == 'queued' or st == 'waiting' then
      local score = scores[i]
      local take = open and nIds < want and (not head or score < head) and not r[16]
      if take and not both then
        local c = redis.call('HMGET', keys[i], unpack(DUE_CLAIM))
        for k = 1, 7 do r[k] = c[k] end
        for k = 8, 14 do r[k + 1] = c[k] end
      end
      if take and lcDueStraight(r) then
        local digit = score % 10
        local tens = (score - digit) / 10
        if tens ~= tensOf then tensOf, tensText = tens, tens > 0 and numText(tens) or '' end
        local jk = keys[i]
        redisCall('HDEL', jk, 'ra')
        leaving.id, leaving.st = id, st
        lcLeave(leaving)
        nIds = nIds + 1
        ids[nIds], taken[nIds], takenKeys[nIds], takenPlaces[nIds] = id, r, jk, tensText .. DIGIT_TEXT[digit + 1]
        straightNow = true
      else
        -- A cancel requested does not close THE PREFIX: the WAKE ends the job (the CANCEL GUARD).
        if not r[16] then open = false end
        lcMove(r.j or lcRead(id, true), 'queued', { score = numText(score), newSeq = score })
        moved = true
      end
    end
    -- A job taken straight or a parked one leaves `delayed` with its move (lcLeave); the others'
    -- entries (a delayed job stays `queued`, so its WAKE leaves nothing; a stale entry) are
    -- removed here.
    if not straightNow and st ~= 'waiting' then rest[#rest + 1] = id end
  end
  if #rest > 0 then redis.call('ZREM', kDelayed, unpack(rest)) end
  if moved then
    lcFlush()
    if listed == 0 then listed = nil end
  end
  if nIds == 0 then return nil, nil, listed end
  return ids, taken, listed, takenKeys, takenPlaces
end

-- Whether due entries are left in `delayed` for another claim (a claim that took its fill says
-- so to an idle supervisor: THE DUE CLAIM takes at most its share).
local function lcDueLeft()
  local first = redis.call('ZRANGE', LC.kp .. 'delayed', '0', '0', 'WITHSCORES')
  return first[2] ~= nil and tonumber(first[2]) <= LC.now
end
