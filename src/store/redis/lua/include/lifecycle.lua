-- THE LIFECYCLE: every status change of a job, written once.
-- Scripts decide WHICH move a job makes; only lcMove makes it. No script writes `st`, or moves a
-- job between the status indexes, by hand.
--
-- Included after common and before fanin. A script sets LC.kp, LC.now, LC.maxLen and LC.ttl, reads each job with lcRead, asks lcGuard,
-- calls lcMove, and calls lcFlush before it returns (index writes are batched, see below).
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

-- from -> to -> the event of machines/job.ts that makes the move (REDRIVE starts a new
-- lifecycle from a dead letter, so the machine, where `failed` is final, does not show it).
-- test/lifecycle/lifecycleTable.test.ts holds this table equal to the machine.
local EDGES = {
  queued = { loading = 'CLAIM', working = 'CLAIM', cancelled = 'CANCEL' },
  loading = { working = 'LOADED', queued = 'FAIL', failed = 'FAIL', cancelled = 'CANCEL' },
  working = { done = 'SUCCEED', queued = 'FAIL', failed = 'FAIL', waiting = 'PARK', cancelled = 'CANCEL' },
  waiting = { queued = 'WAKE', cancelled = 'CANCEL' },
  done = {},
  failed = { queued = 'REDRIVE' },
  cancelled = {},
}
local FINAL = { done = true, failed = true, cancelled = true }
-- Statuses a write may keep (a checkpoint: progress, snapshot, inbox position).
local UPDATABLE = { loading = true, working = true }

-- Set by each script after the include.
local LC = { kp = '', now = 0, maxLen = '1000', ttl = 0, wake = false }

-- Reads what a move needs in one HMGET. A field a small job's hash does not have costs a scan
-- of the whole hash (a listpack), so a finish from a running status reads only the seven it
-- needs; `full` adds what the other moves need (the cancel request, place in line, band, run-at,
-- lease requeues). A finish needs no `cx`: the cancel guard does not apply to it.
local function lcRead(id, full)
  local jk = LC.kp .. 'job:' .. id
  if not full then
    local r = redis.call('HMGET', jk, 'st', 'tk', 'ls', 'ib', 'par', 'fg', 'wt')
    return { id = id, jk = jk, st = r[1], tk = r[2], ls = r[3], ib = r[4], par = r[5], fg = r[6],
      wt = r[7] }
  end
  local r = redis.call('HMGET', jk, 'st', 'tk', 'cx', 'ls', 'ib', 'par', 'fg', 'wt', 'qs', 'lr', 'ra', 'pr')
  return { id = id, jk = jk, st = r[1], tk = r[2], cx = r[3], ls = r[4], ib = r[5], par = r[6],
    fg = r[7], wt = r[8], qs = r[9], lr = r[10], ra = r[11], pr = r[12], full = true }
end

-- nil when `j` may move to `to`, else why not: 'missing' | 'fence' | 'status'.
-- `token`: the caller's lease token (nil for moves no worker makes: cancel, send, reap, redrive).
local function lcGuard(j, to, token)
  if not j.st then return 'missing' end
  if token ~= nil and (token == '' or j.tk ~= token) then return 'fence' end
  if j.st == to then
    if UPDATABLE[to] or to == 'queued' then return nil end
    return 'status'
  end
  local e = EDGES[j.st]
  if e and e[to] then return nil end
  -- LOADED then SUCCEED, the LOADED checkpoint superseded by the done before it was sent.
  if j.st == 'loading' and to == 'done' and token ~= nil then return nil end
  return 'status'
end

-- BATCHED INDEX WRITES: ZREMs and ZADDs are gathered per key and sent by lcFlush, removals
-- first, in slices below Lua's unpack limit. Stream entries of this call are grouped by
-- (kind, status): one XADD per group (emitMany), in the order the groups were opened.
-- ORDER: a job that lcMove moves a second time in one call flushes first when its first move
-- wrote indexes, or when its new entry would go to a group opened before its last one; so
-- each job's index writes and stream entries keep their order. (lcCreate and lcClaim move
-- each job once per call and skip the bookkeeping.)
local lcRem, lcAdd, lcRemKeys, lcAddKeys = {}, {}, {}, {}
local lcTold, lcToldKeys = {}, {}
-- Jobs lcMove moved since the last flush: 2 * (position of their last stream group) + (1 when
-- that move wrote indexes).
local lcMoved = {}
local SLICE = 4000

-- Filled by fanin.lua (which needs lcMove in turn): a finished child tells its parent.
local LCH = {}

local function lcRemove(index, id)
  local t = lcRem[index]
  if not t then t = {}; lcRem[index] = t; lcRemKeys[#lcRemKeys + 1] = index end
  t[#t + 1] = id
end

local function lcIndex(index, score, id)
  local t = lcAdd[index]
  if not t then t = {}; lcAdd[index] = t; lcAddKeys[#lcAddKeys + 1] = index end
  t[#t + 1] = score; t[#t + 1] = id
end

-- ZADD key with a flat {score, member, ...} list of any length.
local function zaddMany(key, flat)
  for s = 1, #flat, SLICE do
    redis.call('ZADD', key, unpack(flat, s, math.min(s + SLICE - 1, #flat)))
  end
end

local function zremMany(key, ids)
  for s = 1, #ids, SLICE do
    redis.call('ZREM', key, unpack(ids, s, math.min(s + SLICE - 1, #ids)))
  end
end

local function lcFlush()
  for _, index in ipairs(lcRemKeys) do zremMany(LC.kp .. index, lcRem[index]) end
  for _, index in ipairs(lcAddKeys) do zaddMany(LC.kp .. index, lcAdd[index]) end
  lcRem, lcAdd, lcRemKeys, lcAddKeys = {}, {}, {}, {}
  for _, g in ipairs(lcToldKeys) do
    emitMany(LC.kp .. 'events', LC.maxLen, LC.now, g.ids, g.kind, g.status)
  end
  lcTold, lcToldKeys, lcMoved = {}, {}, {}
  if LC.wake then
    -- Wake one idle supervisor: there is new work, or a due time came earlier.
    redis.call('ZADD', LC.kp .. 'marker', 0, 'w')
    LC.wake = false
  end
end

-- One stream entry for the move (combined with the same moves of other jobs in this call), in
-- a group opened at or after position `minPos`. Returns the group's position (0: no entry).
local function lcTell(id, kind, status, minPos)
  if not kind then return 0 end
  local byStatus = lcTold[kind]
  if not byStatus then byStatus = {}; lcTold[kind] = byStatus end
  local g = byStatus[status]
  if g and minPos and g.pos < minPos then
    lcFlush()
    byStatus = {}
    lcTold[kind] = byStatus
    g = nil
  end
  if not g then
    g = { kind = kind, status = status, ids = {}, pos = #lcToldKeys + 1 }
    byStatus[status] = g
    lcToldKeys[#lcToldKeys + 1] = g
  end
  local ids = g.ids
  ids[#ids + 1] = id
  return g.pos
end

-- An idle supervisor sleeps until the earliest `delayed` entry it saw: one that comes earlier
-- must wake it, or a retry or timer due sooner would wait out the sleep.
local function lcWakeIfEarlier(runAt)
  local first = redis.call('ZRANGE', LC.kp .. 'delayed', 0, 0, 'WITHSCORES')
  if not first[2] or runAt < tonumber(first[2]) then LC.wake = true end
end

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

-- A finished record made anew under its id (a revived child: enqueue-5.lua): out of every
-- index its status lists it in, with its inbox; lcCreate writes the new one.
local function lcForget(j)
  lcLeave(j)
  redis.call('DEL', j.jk, LC.kp .. 'inbox:' .. j.id, LC.kp .. 'inboxids:' .. j.id)
end

-- A job whose record cannot run (missing, no machine) is set aside in `broken` with the reason.
local function lcSetBroken(id, why)
  lcIndex('broken', LC.now, id)
  redis.call('HSET', LC.kp .. 'brokenwhy', id, why)
  lcTell(id, 'broken', 'failed')
end

-- Moves job `j` (from lcRead, after lcGuard) to status `to`. `o`:
--   kind     the stream entry's type (nil: none)
--   log      audit entries (JSON objects without "at"); implicit = true keeps an implicit log
--   set      extra field/value pairs for the record's HSET (flat list; or lcMove's 4th
--            argument, so that a shared `o` serves many jobs)
--   runAt    queued / waiting: when it is due (Redis ms); nil or <= now: runnable now
--   score    queued: its place in line (default: the one it had, `qs`)
--   fresh    queued: a new place behind the jobs waiting in its band, not the one it had
--   dead     failed: 'broken' sets it aside in `broken` (else a dead letter in `dead`); why: reason
--   output   done: the output JSON; error  failed: the error JSON (a parent's fan-in outcome)
--   consumed waiting: inbox events the parked snapshot has taken in
--   cancelLog  the audit entry if the cancel guard turns the move into a cancel
-- Returns the status the job is in after the move.
-- A done job also drops the error of an earlier attempt (`e`): a done record reports no error,
-- its audit log keeps each failed attempt's (MemoryLifecycle.finish does the same).
local DROP_FAILED, DROP_DONE, DROP_CANCELLED = { 'tk' }, { 'tk', 'qs', 'e' }, { 'tk', 'qs' }

local function lcMove(j, to, o, set)
  local id, jk, now = j.id, j.jk, LC.now
  -- ORDER (see above): a second move of this job in this call.
  local prev = lcMoved[id]
  local minPos = nil
  if prev then
    if prev % 2 == 1 then lcFlush() else minPos = prev / 2 end
  end
  if not FINAL[to] and not j.full then
    local r = redis.call('HMGET', jk, 'cx', 'qs', 'lr', 'ra', 'pr')
    j.cx, j.qs, j.lr, j.ra, j.pr, j.full = r[1], r[2], r[3], r[4], r[5], true
  end
  if j.cx == '1' and not FINAL[to] and not (UPDATABLE[to] and j.st == to) then
    -- THE CANCEL GUARD (see the header).
    to = 'cancelled'
    o = { kind = 'cancelled', log = { o.cancelLog or '{"type":"cancelled","reason":"cancel requested"}' },
      set = set or o.set }
  end
  local args = set or o.set or {}
  args[#args + 1] = 'st'; args[#args + 1] = to
  if FINAL[to] then
    lcLeave(j)
    args[#args + 1] = 'fa'; args[#args + 1] = now
    if not o.implicit then addLog(args, jk, j.ls, now, o.log) end
    redis.call('HSET', jk, unpack(args))
    -- A done or cancelled record keeps no place in line (a redriven dead letter needs its own).
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
    lcIndex(to, now, id)
    if to == 'failed' then
      if o.dead == 'broken' then
        lcIndex('broken', now, id)
        redis.call('HSET', LC.kp .. 'brokenwhy', id, o.why or 'broken')
      else
        lcIndex('dead', now, id)
      end
    end
    if j.par then
      -- The outcome its parent's fan-in records (o.output / o.error: JSON).
      local outcome = to == 'done' and ('{"s":"done","o":' .. o.output .. '}')
        or to == 'failed' and ('{"s":"failed","e":' .. o.error .. '}') or '{"s":"cancelled"}'
      LCH.notifyParent(jk, id, to, outcome)
    end
    if j.fg and to ~= 'failed' then LCH.expireFans(id, j.fg) end
    if j.ib then redis.call('DEL', LC.kp .. 'inbox:' .. id, LC.kp .. 'inboxids:' .. id) end
    lcMoved[id] = lcTell(id, o.kind, to, minPos) * 2 + 1
    return to
  end
  args[#args + 1] = 'ua'; args[#args + 1] = now
  if UPDATABLE[to] then
    -- A checkpoint (or LOADED): the job made progress, so its lease requeues start over.
    addLog(args, jk, j.ls, now, o.log)
    redis.call('HSET', jk, unpack(args))
    if j.lr then redis.call('HDEL', jk, 'lr') end
    lcMoved[id] = lcTell(id, o.kind, to, minPos) * 2
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
      local score = o.score
      -- A place in line that is not a number (a record a foreign producer wrote) gets a fresh
      -- one: a ZADD refusing it would leave this call's earlier writes half-applied.
      if not score and not o.fresh then score = tonumber(j.qs) end
      if not score then
        -- No place in line kept: behind the jobs waiting in its band.
        score = (tonumber(j.pr) or 2) * BAND + redis.call('HINCRBY', LC.kp .. 'meta', 'seq', 1)
      end
      if score ~= j.qs then args[#args + 1] = 'qs'; args[#args + 1] = score end
      if j.ra then redis.call('HDEL', jk, 'ra') end
      lcIndex('queued', score, id)
      LC.wake = true
    end
    addLog(args, jk, j.ls, now, o.log or {})
    redis.call('HSET', jk, unpack(args))
  elseif to == 'waiting' then
    args[#args + 1] = 'tk'; args[#args + 1] = ''
    lcIndex('waiting', now, id)
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
    addLog(args, jk, j.ls, now, o.log or {})
    redis.call('HSET', jk, unpack(args))
  end
  lcMoved[id] = lcTell(id, o.kind, to, minPos) * 2 + 1
  return to
end

-- THE PLAIN DONE: lcMove's done, for the job most jobs are (a running job with no parent,
-- fan-out, inbox, watcher or audit log of its own, not moved before in this call): the same
-- writes in a fraction of the Lua. Anything else takes lcMove. test/lifecycle/plainDone.test.ts
-- runs both on the same jobs and compares the records, indexes and stream they leave.
-- Returns 1 when written, 0 when refused (THE FENCE, or a status that cannot end done).
local PLAIN_DONE_LOG = { '{"type":"done"}' }
local function lcDonePlain(id, token, output)
  local jk = LC.kp .. 'job:' .. id
  local r = redis.call('HMGET', jk, 'st', 'tk', 'ls', 'ib', 'par', 'fg', 'wt')
  if token == '' or r[2] ~= token then return 0 end
  if r[3] or r[4] or r[5] or r[6] or r[7] or lcMoved[id] then
    local j = { id = id, jk = jk, st = r[1], tk = r[2], ls = r[3], ib = r[4], par = r[5], fg = r[6], wt = r[7] }
    if lcGuard(j, 'done', token) then return 0 end
    lcMove(j, 'done', { kind = 'done', log = PLAIN_DONE_LOG, implicit = not r[3], output = output }, { 'o', output })
    return 1
  end
  if not UPDATABLE[r[1]] then return 0 end
  redis.call('HSET', jk, 'o', output, 'st', 'done', 'fa', LC.now)
  redis.call('HDEL', jk, 'tk', 'qs', 'e')
  lcRemove('active', id)
  lcIndex('done', LC.now, id)
  lcMoved[id] = lcTell(id, 'done', 'done') * 2 + 1
  return 1
end

-- A new job (ENQUEUE, the machine's initial `queued`): its record from `fields` (flat
-- field/value list whose 7th and 8th values are 'st', 'queued': early in the hash, where every
-- read finds it soonest), listed in `queued` at `score`, or in `delayed` until `runAt`.
local function lcCreate(id, jk, fields, score, runAt)
  if fields[7] ~= 'st' or fields[8] ~= 'queued' then error('lcCreate: fields must set st queued') end
  redis.call('HSET', jk, unpack(fields))
  if runAt then
    lcIndex('delayed', runAt, id)
  else
    lcIndex('queued', score, id)
  end
  LC.wake = true
  lcTell(id, 'enqueued', 'queued')
end

-- The claim of a job popped from `queued` (st must be queued): status `st` (loading|working)
-- under lease `token` until `deadline`; `entry`: its audit entry, when the caller logs one (`ls`:
-- the log count as read).
local function lcClaim(id, jk, st, token, deadline, ls, entry)
  local args = { 'st', st, 'tk', token, 'ct', LC.now }
  if entry then addLog(args, jk, ls, LC.now, { entry }) end
  redis.call('HSET', jk, unpack(args))
  lcIndex('active', deadline, id)
  lcTell(id, 'claimed', st)
end
