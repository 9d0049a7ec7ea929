--- @include "lcState"
--- @include "lcRead"
--- @include "lcBatch"
--- @include "lcLeave"
--- @include "lcWakeIfEarlier"
--- @include "addLog"
--- @include "pushResult"
--- @include "tokenWorker"
--- @include "publishControl"
--- @include "fanKey"
--- @include "fanKeys"
--- @include "lcTally"
--- @include "recordKeys"
-- THE LIFECYCLE: every status change of a job, written once.
-- Scripts decide WHICH move a job makes; only lcMove makes it. No script writes `st`, or moves a
-- job between the status indexes, by hand. The claim (CLAIM: queued -> loading | working) is
-- made by lcClaim, and a due job first in line makes its WAKE and its CLAIM in one step there
-- (THE DUE CLAIM, lcClaimDue.lua: waiting -> queued -> working within one atomic call, the
-- `queued` never stored): no move outside EDGES (src/store/lifecycleTable.ts).
--
-- A script sets LC.kp, LC.now, LC.maxLen and LC.ttl (lcState.lua), reads each job with lcRead,
-- asks lcGuard, calls lcMove, and calls lcFlush before it returns (index writes are batched, see
-- lcBatch.lua).
--
-- The statuses and where a job of each is listed (index zsets under the queue's prefix):
--   queued     `queued` (runnable now, by band + FIFO score) or `delayed` (by its run-at time)
--   loading    `active` (by lease deadline)
--   working    `active`
--   waiting    `waiting` (by park time), and `delayed` too while it has a wake-up time
--   done       `done` (finish time; sweep-5.lua deletes it after the retention window)
--   failed     `failed` and `dead` (a dead letter) or `broken` (no supervisor could run it)
--   cancelled  `cancelled` (like done)
--
-- THE GUARDS (lcGuard), in this order, before any write: the job exists; the caller's lease
-- token is the job's (THE FENCE: a worker whose lease passed MUST NOT change the job); the move
-- is an edge of EDGES from the job's status. Then lcMove applies the CANCEL GUARD: a job whose
-- cancel was requested (`cx`) that would be requeued, retried, parked, woken or claimed ends
-- `cancelled` instead. A cancel is final: nothing but a finishing write of the attempt that was
-- running when it came can take the job anywhere else.
--
-- Entering a final status (done, failed, cancelled) clears what only a live job needs: the
-- lease token, the inbox (list, position, sent-event ids), the fan-in wake flag, the run-at
-- time; tells the job's watchers (pushResult), its parent (notifyParent) and the stream; a done
-- or cancelled parent's fan-out records expire with it (a failed one's stay with the dead
-- letter until it is purged, redriven or retired by sweep-5.lua).
--
-- A MINIMAL RECORD (`rm`, docs/concepts.md): its moves write no audit entry and no stream entry
-- (the queue's tally still counts its end); ending done, it is deleted once its watchers have the
-- result (recordKeys, as retention deletes a record). Failed or cancelled, it stays whole.

-- ONE RECURSION, ONE FILE: a child that ends tells its parent (notifyParent -> fanIn), and a
-- parent woken by its children moves (fanIn -> lcMove), which may end it (the cancel guard) and
-- tell its own parent. Lua cannot name a local function before it is defined, so the three
-- live here, lcMove declared first; no other include takes part in a cycle.
local lcMove

-- Child -> parent delivery (fan-in). Records one child's outcome in
-- its parent's fan-out record, at most once per child, and wakes the parent when the set it
-- awaits is complete: all done, or (failFast) the first failure. O(1) commands per child,
-- whatever the fan-out's size. The parent lives on LC.kp's queue: callers run in its slot
-- (fanIn-2.lua, the outbox relay, sets LC.kp to the parent's queue).
local function fanIn(parentId, group, index, status, result)
  local pkp = LC.kp
  local fk = fanKey(pkp, parentId, group)
  local total, policy, fired = unpack(redis.call('HMGET', fk, 'n', 'p', 'x'))
  if not total then return 0 end
  if redis.call('HSETNX', fk, 'r' .. index, result) == 0 then return 0 end
  local d = redis.call('HINCRBY', fk, 'd', 1)
  local n = tonumber(total)
  local complete = d >= n
  if status ~= 'done' then
    redis.call('HINCRBY', fk, 'f', 1)
    if policy == 'failFast' then complete = true end
  end
  local p = lcRead(parentId)
  if not p.st then return 1 end
  redis.call('HSET', p.jk, 'p', '{"children":{"done":' .. d .. ',"total":' .. n .. '}}')
  if complete and fired ~= '1' then
    redis.call('HSET', fk, 'x', '1')
    if p.st == 'waiting' then
      lcMove(p, 'queued', { kind = 'fan-in' })
    elseif p.st == 'working' or p.st == 'loading' then
      -- Running: tell its worker now; if it parks first, the park sees `fw` and wakes it.
      redis.call('HSET', p.jk, 'fw', '1')
      local w = tokenWorker(p.tk)
      if w then publishControl(pkp, w, 'fanin ' .. parentId) end
    elseif p.st == 'queued' then
      redis.call('HSET', p.jk, 'fw', '1')
    end
  end
  return 1
end

-- Called by lcMove when a child reaches done / failed / cancelled. A child of a parent on the
-- same queue is delivered here, atomically with its ending; one on another queue (another hash
-- slot) is put in this queue's outbox with its outcome, which workers relay (at least once;
-- fanIn is idempotent per child).
local function notifyParent(jk, id, status, result)
  local par, pq, pg, pi = unpack(redis.call('HMGET', jk, 'par', 'pq', 'pg', 'pi'))
  if not par then return end
  -- The parent's index of its children on this queue lives as long as the children do.
  redis.call('PEXPIRE', LC.kp .. 'children:' .. par, LC.ttl)
  if not pq or pq == '' then
    fanIn(par, pg, pi, status, result)
  else
    -- The entry carries what the parent's fan-in needs (src/store/outboxEntry.ts): the relay
    -- never reads this record, which retention may have deleted by then.
    local entry = cjson.encode({ id, par, pq, pg or '', pi or '0', status, result })
    redis.call('ZADD', LC.kp .. 'outbox', LC.now, entry)
  end
end

-- A parent that ended done or cancelled takes its fan-out records with it: they expire with
-- its record. (A failed parent is a dead letter: its records stay until it is purged, redriven or retired.)
local function expireFans(id, fg)
  for _, fk in ipairs(fanKeys(LC.kp, id, fg)) do redis.call('PEXPIRE', fk, LC.ttl) end
end

-- Moves job `j` (from lcRead, after lcGuard) to status `to`. `o`:
--   kind     the stream entry's type (nil: none)
--   log      audit entries (JSON objects without "at"); implicit = true keeps an implicit log
--   set      extra field/value pairs for the record's HSET (flat list; or lcMove's 4th
--            argument, so that a shared `o` serves many jobs)
--   runAt    queued / waiting: when it is due (Redis ms); nil or <= now: runnable now
--   score    queued: its place in line (default: the one it had, `qs`)
--   fresh    queued: a new place behind the jobs waiting in its band, not the one it had
--   newSeq   queued: `score` (as a number) was just made from a new seq (THE READY LIST's
--            RULE, include/lcReady.lua: the job may go to `ready`)
--   dead     failed: 'broken' sets it aside in `broken` (else a dead letter in `dead`); why: reason
--   output   done: the output JSON; error  failed: the error JSON (a parent's fan-in outcome)
--   consumed waiting: inbox events the parked snapshot has taken in
--   cancelLog  the audit entry if the cancel guard turns the move into a cancel
-- Returns the status the job is in after the move.
-- A done job also drops the error of an earlier attempt (`e`): a done record reports no error,
-- its audit log keeps each failed attempt's (MemoryLifecycle.finish does the same).
-- DEDUPE RELEASE (include/dedupe.lua; MemoryLifecycle.releaseDedupe): a job made under a dedupe
-- key frees it as it ends, and a keepLast job pending behind it is due now. Such a job always has
-- an audit log (`ls`), so jobs without one pay nothing here.
local function ddRelease(j)
  local dk = redis.call('HGET', j.jk, 'dk')
  if not dk then return end
  local rk = LC.kp .. 'dd:' .. dk
  local rec = redis.call('GET', rk)
  if not rec then return end
  local cur, nxt = string.match(rec, '^(%S+) (%S+)$')
  if not cur then cur = rec end
  if nxt == j.id then redis.call('SET', rk, cur, 'KEEPTTL'); return end
  if cur ~= j.id then return end
  if not nxt then redis.call('DEL', rk); return end
  redis.call('SET', rk, nxt, 'KEEPTTL')
  local p = lcRead(nxt, true)
  if p.st == 'queued' then
    lcLeave(p)
    lcMove(p, 'queued', { fresh = true, log = { '{"type":"due","after":"' .. j.id .. '"}' } })
  end
end

-- A done record keeps `qs` and `tk` emptied (a done job never goes back in line), as the plain
-- done leaves it (lcDonePlain.lua: no HDEL a job); records of older code have neither.
local DROP_FAILED, DROP_DONE, DROP_CANCELLED = { 'tk' }, { 'e' }, { 'tk', 'qs' }

lcMove = function(j, to, o, set)
  local id, jk, now = j.id, j.jk, LC.now
  -- The time as sent: formatted once per call (numText.lua).
  local nowT = lcNowText()
  -- ORDER (see above): a second move of this job in this call.
  local prev = lcMoved[id]
  local minPos = nil
  if prev then
    if prev % 2 == 1 then lcFlush() else minPos = prev / 2 end
  end
  -- A checkpoint's read (lcRead 'update') holds all a move that keeps its status needs.
  if not FINAL[to] and not j.full and not (j.upd and j.st == to and UPDATABLE[to]) then
    j.cx, j.qs, j.lr, j.ra, j.pr = unpack(redis.call('HMGET', jk, 'cx', 'qs', 'lr', 'ra', 'pr'))
    j.full = true
  end
  if j.cx == '1' and not FINAL[to] and not (UPDATABLE[to] and j.st == to) then
    -- THE CANCEL GUARD (see the header).
    to = 'cancelled'
    o = { kind = 'cancelled', log = { o.cancelLog or '{"type":"cancelled","reason":"cancel requested"}' },
      set = set or o.set }
  end
  local args = set or o.set or {}
  args[#args + 1] = 'st'; args[#args + 1] = to
  local kind, quiet = o.kind, j.rm
  if quiet then kind = nil end
  if FINAL[to] then
    -- Its tally (lcTally.lua): a done or failed job's wait and run need `ca` and `ct`.
    if to ~= 'cancelled' and not j.ca then j.ct, j.ca = unpack(redis.call('HMGET', jk, 'ct', 'ca')) end
    lcTally(to, j.ca, j.ct)
    lcLeave(j)
    args[#args + 1] = 'fa'; args[#args + 1] = nowT
    if to == 'done' then
      args[#args + 1] = 'tk'; args[#args + 1] = ''; args[#args + 1] = 'qs'; args[#args + 1] = ''
    end
    if not o.implicit and not quiet then addLog(args, jk, j.ls, now, o.log) end
    redis.call('HSET', jk, unpack(args))
    -- A cancelled record keeps no place in line (a redriven dead letter needs its own); a done one
    -- has it emptied above (DROP_DONE).
    -- Only fields that can be there are named: `fw` is a parent's, `io` comes with an inbox.
    -- `ra` is only on a queued or parked job (a running one had it cleared when it was due).
    local drop = to == 'failed' and DROP_FAILED or to == 'done' and DROP_DONE or DROP_CANCELLED
    if j.ib or j.fg or j.st == 'queued' or j.st == 'waiting' then
      drop = { unpack(drop) }
      if j.st == 'queued' or j.st == 'waiting' then drop[#drop + 1] = 'ra' end
      if j.ib then drop[#drop + 1] = 'io'; drop[#drop + 1] = 'ib' end
      if j.fg then drop[#drop + 1] = 'fw' end
    end
    redis.call('HDEL', jk, unpack(drop))
    if j.wt then pushResult(LC.kp, jk, id, j.wt) end
    local forget = quiet and to == 'done'
    if not forget then lcIndex(to, nowT, id) end
    if to == 'failed' then
      if o.dead == 'broken' then
        lcIndex('broken', nowT, id)
        redis.call('HSET', LC.kp .. 'brokenwhy', id, o.why or 'broken')
      else
        lcIndex('dead', nowT, id)
      end
    end
    if j.par then
      -- The outcome its parent's fan-in records (o.output / o.error: JSON).
      local outcome = to == 'done' and ('{"s":"done","o":' .. o.output .. '}')
        or to == 'failed' and ('{"s":"failed","e":' .. o.error .. '}') or '{"s":"cancelled"}'
      notifyParent(jk, id, to, outcome)
    end
    if j.fg and to ~= 'failed' then expireFans(id, j.fg) end
    -- The inbox goes; its events' ids stay with the record (recordKeys.lua), so that a send
    -- repeated after the end is answered as delivered (send-5.lua).
    if j.ib then redis.call('DEL', LC.kp .. 'inbox:' .. id) end
    lcMoved[id] = lcTell(id, kind, to, minPos) * 2 + 1
    if j.ls then ddRelease(j) end
    if forget then redis.call('DEL', unpack(recordKeys(LC.kp, id))) end
    return to
  end
  args[#args + 1] = 'ua'; args[#args + 1] = nowT
  if UPDATABLE[to] then
    -- A checkpoint (or LOADED): the job made progress, so its lease requeues start over.
    if not quiet then addLog(args, jk, j.ls, now, o.log) end
    redis.call('HSET', jk, unpack(args))
    if j.lr then redis.call('HDEL', jk, 'lr') end
    lcMoved[id] = lcTell(id, kind, to, minPos) * 2
    return to
  end
  if j.st ~= to then lcLeave(j) end
  if to == 'queued' then
    args[#args + 1] = 'tk'; args[#args + 1] = ''
    local runAt = o.runAt
    if runAt and runAt > now then
      args[#args + 1] = 'ra'; args[#args + 1] = runAt
      lcWakeIfEarlier(runAt)
      lcIndex('delayed', runAt, id)
    else
      local score, fresh = o.score, o.newSeq
      -- A place in line that is not a number (a record a foreign producer wrote) gets a fresh
      -- one: a ZADD refusing it would leave this call's earlier writes half-applied.
      if not score and not o.fresh then score = tonumber(j.qs) end
      if not score then
        -- No place in line kept: behind the jobs waiting in its band.
        score = (tonumber(j.pr) or 2) * BAND + redis.call('HINCRBY', LC.kp .. 'meta', 'seq', 1)
        fresh = score
      end
      if score ~= j.qs then args[#args + 1] = 'qs'; args[#args + 1] = score end
      if j.ra then redis.call('HDEL', jk, 'ra') end
      lcEnterQueued(id, score, j.ck, fresh)
    end
    if not quiet then addLog(args, jk, j.ls, now, o.log or {}) end
    redis.call('HSET', jk, unpack(args))
  elseif to == 'waiting' then
    args[#args + 1] = 'tk'; args[#args + 1] = ''
    lcIndex('waiting', nowT, id)
    -- An event or a fan-in may have come after the worker last looked: wake it at once.
    local fw = redis.call('HGET', jk, 'fw')
    if fw then redis.call('HDEL', jk, 'fw') end
    local runAt = o.runAt
    if fw or (j.ib and redis.call('LLEN', LC.kp .. 'inbox:' .. id) > (o.consumed or 0)) then
      runAt = 0
    end
    if runAt then
      if runAt > 0 then args[#args + 1] = 'ra'; args[#args + 1] = runAt end
      lcWakeIfEarlier(runAt)
      lcIndex('delayed', runAt, id)
    end
    if not quiet then addLog(args, jk, j.ls, now, o.log or {}) end
    redis.call('HSET', jk, unpack(args))
  end
  lcMoved[id] = lcTell(id, kind, to, minPos) * 2 + 1
  return to
end
