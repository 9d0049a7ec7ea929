--- @include "lcState"
--- @include "lcRead"
--- @include "lcMove"
--- @include "lcClaim"
--- @include "lcBare"
--- @include "lcFlow"
--- @include "lcKeyGate"
--- @include "lcMachineRate"
--- @include "lcSetBroken"
--- @include "lcBatch"
--- @include "lcClaimDue"
--- @include "lcClaimEarly"
--- @include "lcTakeQueued"
--- @include "addLog"
--- @include "numText"
--- @include "digitText"
--- @include "tokenWorker"
--- @include "publishControl"
--- @include "redisCall"
-- Claim, through THE FLOW GATE (include/lcFlow.lua, docs/flow-control.md): a paused queue
-- gives nothing; `total` caps how many run (the size of `active`); a job whose concurrency key
-- is full is set aside in its key's waiting line (keeping its place) instead of being popped
-- again and again, and the claim pops on for others, at most FLOW_POP_CAP jobs per call.
local FLOW_POP_CAP = 1000

-- A job set aside in its key's line goes there at its place in line: its score in `queued`, or
-- on a roundRobin queue its own place (`qs`: a head entered `queued` at a fresh score, behind its
-- band, and must not fall behind its key's later jobs; include/lcFlow.lua).
local function linePlace(jk, score)
  if not LC.rr then return score end
  return tonumber(redis.call('HGET', jk, 'qs')) or score
end

-- Asks one running job of key `ck` that was not asked yet to stop, for job `by`: cx set, logged,
-- told on the stream and to its worker's control channel (as cancel-8.lua does for a running job).
local function requestKeyCancel(ck, by)
  for _, hid in ipairs(redis.call('SMEMBERS', LC.kp .. 'ck:' .. ck)) do
    local hk = LC.kp .. 'job:' .. hid
    local hst, htk, hcx, hls = unpack(redis.call('HMGET', hk, 'st', 'tk', 'cx', 'ls'))
    if hcx ~= '1' and (hst == 'loading' or hst == 'working') then
      local why = 'a newer job of concurrency key ' .. ck .. ' (' .. by .. ') replaces it (strategy cancelInProgress)'
      local args = { 'cx', '1', 'ua', LC.now }
      addLog(args, hk, hls, LC.now, { '{"type":"cancel-requested","reason":' .. cjson.encode(why) .. '}' })
      redis.call('HSET', hk, unpack(args))
      lcTell(hid, 'cancel-requested', hst)
      local w = tokenWorker(htk)
      if w then publishControl(LC.kp, w, 'cancel ' .. hid) end
      return
    end
  end
end

-- THE PACKED REPLY (commit-12.lua's header): a text's length in bytes as its prefix: one byte
-- below 128, else 7 bits a byte, the lowest first, the high bit set on every byte but the last.
local packChar = string.char
local function packLen(n)
  if n < 128 then return packChar(n) end
  local b = {}
  while n >= 128 do
    local low = n % 128
    b[#b + 1] = low + 128
    n = (n - low) / 128
  end
  b[#b + 1] = n
  return packChar(unpack(b))
end

-- packLen(n), kept in `lens` for the next text of that length.
local function packLenOnce(lens, n)
  local t = packLen(n)
  lens[n] = t
  return t
end

-- Text `s` packed (its length, then itself), kept in `packed` for the next job that has it: the
-- compact reply's texts but the snapshot are mostly the same for the jobs of a claim (a machine,
-- a status, '' for a field a job does not have).
local function packOnce(packed, lens, s)
  local n = #s
  local t = (lens[n] or packLenOnce(lens, n)) .. s
  packed[s] = t
  return t
end

-- THE COMPACT REPLY's last 9 texts, packed, for a job that has none of them (attempt, lease
-- requeues, parent id, options, inbox position '0', parent queue, has inbox, parent state,
-- retry-laters: each '' but the inbox position): most due parked pipelines.
local PACKED_NONE = '\0\0\0\0\0010\0\0\0\0'

-- THE TOKENS' TEXT: a job's token is "<workerId>:<n>" (n = the `tok` counter in meta), made per
-- job as the head "<workerId>:<n div 10>" (made once per ten: numText) and its last digit
-- (include/digitText.lua). numText per job was a string.format a job (~1.5k instructions under
-- callgrind).

-- commit-12.lua's claim, after its ops (its header says what the reply holds): `want` jobs at most,
-- then `skipN` more ended cancelled unrun (a throttle of mode 'skip'). Fills `claimed` (empty)
-- with a text of THE PACKED REPLY per job started (table.concat makes the reply of them);
-- returns the call's next due time (`nextDue` when it finds none to say), the number of
-- jobs started and the number of them HELD (THE EARLY LEASE, include/lcClaimEarly.lua: `hold`
-- jobs at most, due within `lead` ms; 0, 0: none), the last ones of the reply.
-- `throttled`: the throttle held some back; the others are the call's arguments and the flow's
-- settings as commit-12 read them (`keyGate`, `mrated`: booleans; `perKey`: a number or nil).
-- A function of its own: the main chunk of commit-12 may hold at most 200 locals (Lua 5.1), the
-- includes' among them, and the claim's own left it almost none.
local function lcClaimJobs(want, skipN, throttled, nextDue, claimed, workerId, leaseMs, loadSet, perKey, strategy,
    keyGate, mrated, hold, lead)
  local delayedKey, metaKey, markerKey = KEYS[2], KEYS[4], KEYS[6]
  local now = LC.now
  local hasLoadSet = loadSet ~= '||' and loadSet ~= ''
  -- The machine, version, max attempts and status of the last job of the reply that carried them.
  local lastM, lastV, lastMa, lastSt
  -- `nc`: the jobs started; `np`: the texts in `claimed` (a job's may be in pieces: THE PIECES);
  -- `lens`, `packed`: THE PACKED REPLY's texts made so far (packLenOnce, packOnce).
  local nc, np, lens, packed = 0, #claimed, {}, {}
  -- THE DUE CLAIM (include/lcClaimDue.lua): the due jobs first in line, claimed straight (the first
  -- batch below); the claim's other due jobs into `queued`.
  -- `listed`: THE LIST'S LENGTH HANDED OVER to the first take below (nil: none).
  local straight = not (keyGate or mrated or LC.gated)
  -- Their records' keys and the places their claims write beside them (and the early batch's).
  local dueIds, dueRecs, listed, dueKeys, duePlaces = lcClaimDue(want + skipN, want, straight)
  -- THE EARLY LEASE: its jobs are the reply's last batch (the worker knows them by their count).
  local earlyIds, earlyRecs, earlyNext, earlyKeys, earlyPlaces, held = nil, nil, nil, nil, nil, 0
  if hold > 0 and lead > 0 and straight then
    earlyIds, earlyRecs, earlyNext, earlyKeys, earlyPlaces = lcClaimEarly(hold, lead)
  end
  -- The line was taken to its end (or its pop cap): only the early batch may follow.
  local lineDone = false
  if keyGate then lcReleaseDueKeys(now) end
  if mrated then lcReleaseDueMachines(now) end
  local got, popped, asked = 0, 0, want
  -- The lease's end, as text (include/numText.lua): the same for every job of this call.
  local deadline = numText(now + leaseMs)
  -- A held job's (THE EARLY LEASE): to the window's end and a lease more, so it needs no
  -- heartbeat while it waits for its timer (supervisor/LeaseKeeper.ts).
  local heldDeadline = earlyIds and numText(now + lead + leaseMs)
  local tokPrefix = workerId .. ':'
  -- The head of the last token made (THE TOKENS' TEXT) and its n div 10.
  local tokHead, tokTens = nil, -1
  -- Only a job with a key, a machine gate or a machine throttle can be set aside in a line, at
  -- its score: the other queues take the ids alone (ZRANGE, ZREMRANGEBYRANK: as ZPOPMIN, without
  -- a score formatted as a float per job).
  local withScores = LC.keyed or LC.gated or mrated
  while (got < want and not lineDone) or earlyIds do
    local batch, places, pre, preKeys, prePlaces
    local early = false
    if dueIds then
      -- THE DUE CLAIM's jobs, read already; never set aside in a line, so no places.
      batch, places, pre, preKeys, prePlaces, dueIds = dueIds, {}, dueRecs, dueKeys, duePlaces, nil
    elseif got < want and not lineDone then
      -- The line's front: `queued` and THE READY LIST merged (include/lcTakeQueued.lua).
      batch, places = lcTakeQueued(want - got, withScores, listed)
      listed = nil
    else
      -- THE EARLY LEASE's jobs, read already, as THE DUE CLAIM's (THE STRAIGHT RULE).
      batch, places, pre, preKeys, prePlaces, earlyIds, early = earlyIds, {}, earlyRecs, earlyKeys, earlyPlaces, nil,
        true
    end
    local n = #batch
    if n == 0 then lineDone = true end
    if not early then popped = popped + n end
    local tok = n > 0 and redis.call('HINCRBY', metaKey, 'tok', numText(n)) - n or 0
    local parked = 0
    for i = 1, n do
      local id = batch[i]
      -- A due job claimed straight (THE DUE CLAIM): read already, and no gate applies to it.
      local r = pre and pre[i]
      local jk = r and preKeys[i] or LC.kp .. 'job:' .. id
      -- No `st` or `cx` read: `queued` holds only queued jobs, and none has `cx` (every move
      -- into `queued` passes the CANCEL GUARD, and cancel-8 ends a job that is not running at
      -- once), so the claim's guards hold by construction. `ck` only on a queue that has had a
      -- job with a key, `rm` only on one that has had a minimal record; the rare fields only
      -- when the record is not bare (include/lcBare.lua).
      local m, v, input, ma, ck, rm
      if r then
        -- (Its DUE READ's order: lcClaimDue.lua.)
        m, v, input, ma, rm = r[1], r[5], r[2], r[6], LC.minimal and r[18] or nil
      elseif LC.minimal then
        if LC.keyed then
          local r = redisCall('HMGET', jk, 'm', 'v', 'in', 'ma', 'ck', 'rm')
          m, v, input, ma, ck, rm = r[1], r[2], r[3], r[4], r[5], r[6]
        else
          local r = redisCall('HMGET', jk, 'm', 'v', 'in', 'ma', 'rm')
          m, v, input, ma, rm = r[1], r[2], r[3], r[4], r[5]
        end
      elseif LC.keyed then
        local r = redisCall('HMGET', jk, 'm', 'v', 'in', 'ma', 'ck')
        m, v, input, ma, ck = r[1], r[2], r[3], r[4], r[5]
      else
        local r = redisCall('HMGET', jk, 'm', 'v', 'in', 'ma')
        m, v, input, ma = r[1], r[2], r[3], r[4]
      end
      local sn, attempt, lr, par, opt, ls, io, pq, ib, ct, rl
      local bare = false
      if r then
        -- No `ct` (a DUE READ has none): the claim logs a job claimed straight whatever it is, its
        -- log written out (THE STRAIGHT RULE), or not, a minimal record.
        sn, attempt, lr, par, opt, ls = r[3], r[7], r[9], r[10], r[11], r[4]
        io, pq, ib, rl = r[12], r[13], r[14], r[15]
      elseif m then bare = lcBare(jk, ck and 6 or 5, v, ma, rm) end
      if m and not bare and not r then
        sn, attempt, lr, par, opt, ls, io, pq, ib, ct, rl = unpack(redis.call('HMGET', jk, 'sn', 'a', 'lr', 'par',
          'opt', 'ls', 'io', 'pq', 'ib', 'ct', 'rl'))
      end
      -- A child whose parent is on this queue (same slot): a parent that is gone, finished or
      -- being cancelled ends it cancelled here, unrun.
      local parentGone = nil
      if par and (not pq or pq == '') then
        local pst, pcx = unpack(redis.call('HMGET', LC.kp .. 'job:' .. par, 'st', 'cx'))
        if not pst then parentGone = 'missing'
        elseif pcx == '1' then parentGone = 'cancelled'
        elseif FINAL[pst] then parentGone = pst end
      end
      -- The gate of its machine (a queue with machine gates only), and its throttle.
      local gate = LC.gated and m and lcGateOf(m) or nil
      local mrate = mrated and m and lcMachineRate(m) or nil
      local mAt = mrate and lcMachineRateAt(m, now, mrate, false) or nil
      -- Set aside in its key's line (then its key's next does not enter: what frees the line does).
      local inLine = false
      if not m then
        -- No record (or one without a machine): nothing to run. Set it aside with the reason.
        lcSetBroken(id, 'job record missing or has no machine')
        -- Its key unknown with its record: the round robin's head counts start afresh.
        if LC.rr and not ck then lcHeadsAfresh() end
      elseif parentGone then
        local j = lcRead(id)
        j.popped = true
        local reason = 'parent ' .. parentGone
        lcMove(j, 'cancelled', { kind = 'cancelled',
          log = { '{"type":"cancelled","reason":' .. cjson.encode(reason) .. '}' } })
      elseif ck and keyGate and redis.call('SISMEMBER', LC.kp .. 'kpaused', ck) == 1 then
        -- A PAUSED KEY: into its line at its place; its resume puts it back (keyPause-3.lua).
        redis.call('ZADD', LC.kp .. 'ckwait:' .. ck, linePlace(jk, places[i]), id)
        redis.call('SADD', LC.kp .. 'ckkeys', ck)
        parked = parked + 1
        inLine = true
      elseif ck and perKey and redis.call('SCARD', LC.kp .. 'ck:' .. ck) >= perKey then
        if strategy == 'cancelNewest' then
          -- CANCEL NEWEST: the job that finds its key full ends cancelled, unrun, saying why.
          local j = lcRead(id)
          j.popped = true
          local why = 'concurrency key ' .. ck .. ' is full (perKey ' .. perKey .. ', strategy cancelNewest)'
          lcMove(j, 'cancelled', { kind = 'cancelled',
            log = { '{"type":"cancelled","reason":' .. cjson.encode(why) .. '}' } })
        else
          if strategy == 'cancelInProgress' then
            -- CANCEL IN PROGRESS: the newest wins. One running job of the key not yet asked to
            -- stop is asked now (as cancel-8.lua asks a running job); its ending frees the slot
            -- for this one, which waits for it in the key's line.
            requestKeyCancel(ck, id)
          end
          -- Its key is full: into the key's waiting line at the place it had; a slot of the key
          -- that frees puts it back (lcFreeSlot). It stays `queued`.
          redis.call('ZADD', LC.kp .. 'ckwait:' .. ck, linePlace(jk, places[i]), id)
          redis.call('SADD', LC.kp .. 'ckkeys', ck)
          inLine = true
        end
        parked = parked + 1
      elseif gate and redis.call('SCARD', LC.kp .. 'gh:' .. gate.g) >= gate.limit then
        -- ITS MACHINE'S GATE IS FULL: into the gate's line at its place; a slot of the gate that
        -- frees puts it back (lcFreeGate).
        redis.call('ZADD', LC.kp .. 'gwait:' .. gate.g, places[i], id)
        redis.call('SADD', LC.kp .. 'gkeys', gate.g)
        parked = parked + 1
      elseif mAt then
        -- OVER ITS MACHINE'S RATE: in mode 'skip' ended cancelled, unrun; else into the machine's
        -- rate line, the machine due when its rate allows (include/lcMachineRate.lua).
        if mrate.skip then
          local j = lcRead(id)
          j.popped = true
          lcMove(j, 'cancelled', { kind = 'cancelled', log = { '{"type":"cancelled","reason":'
            .. cjson.encode('machine ' .. m .. ' is over its rate limit (mode skip)') .. '}' } })
        else
          lcMachineRateWait(id, m, places[i], mAt)
        end
        parked = parked + 1
      elseif ck and keyGate and lcKeyRateAt(ck, now) then
        -- OVER ITS KEY'S RATE (or held by a RateLimitedError of the key): in mode 'skip' ended
        -- cancelled, unrun; else into its key's line, the key due when its rate allows.
        if KG.skip then
          local j = lcRead(id)
          j.popped = true
          lcMove(j, 'cancelled', { kind = 'cancelled', log = { '{"type":"cancelled","reason":'
            .. cjson.encode('concurrency key ' .. ck .. ' is over its rate limit (mode skip)') .. '}' } })
        else
          redis.call('ZADD', LC.kp .. 'ckwait:' .. ck, linePlace(jk, places[i]), id)
          redis.call('SADD', LC.kp .. 'ckkeys', ck)
          lcKeyDue(ck, lcKeyRateAt(ck, now))
          inLine = true
        end
        -- Either way it does not count as started: the claim pops on for others.
        parked = parked + 1
      else
        local x = tok + i
        local digit = x % 10
        local tens = (x - digit) / 10
        if tens ~= tokTens then
          tokTens = tens
          tokHead = tens > 0 and tokPrefix .. numText(tens) or tokPrefix
        end
        local token = tokHead .. DIGIT_TEXT[digit + 1]
        local st = 'working'
        if hasLoadSet and not sn and string.find(loadSet, '|' .. m .. '|', 1, true) then st = 'loading' end
        -- Short on purpose (the hash stays a compact listpack): no worker field (the token
        -- names it), `ct` is the claim time (and the update time, see decodeJob), and the first
        -- claim of a job whose log is still implicit logs nothing (see include/addLog.lua).
        local entry = nil
        local a = attempt and tonumber(attempt) or 1
        -- A minimal record (`rm`) logs nothing and is not told on the stream (include/lcMove.lua).
        if (ls or ct or a > 1) and not rm then
          entry = a > 1 and ('{"type":"claimed","attempt":' .. a .. '}') or '{"type":"claimed"}'
        end
        if ck and perKey then
          -- Holds a slot of its key while it runs (lcFlow.lua's invariants: only while perKey is
          -- set; without it nothing counts a key's running jobs, so none is kept).
          redis.call('SADD', LC.kp .. 'ck:' .. ck, id)
        end
        -- Its start spends its machine's rate (only now: a job held back by its key spends none).
        if mrate then lcMachineRateAt(m, now, mrate, true) end
        if gate then
          -- And a slot of its machine's gate (lcGate.lua's invariants).
          redis.call('SADD', LC.kp .. 'gh:' .. gate.g, id)
          redis.call('SADD', LC.kp .. 'gkeys', gate.g)
        end
        lcClaim(id, jk, st, token, early and heldDeadline or deadline, ls, entry, rm, r and prePlaces[i])
        -- An absent `v` or `ma` goes as '': the default (THE DEFAULTS LEFT OUT, include/lcCreate.lua),
        -- which commitOps.ts's decodeClaimed puts back.
        input, v, ma = input or '', v or '', ma or ''
        -- WITHHELD INPUT (commit-12.lua's header): its size goes instead, as a 15th text.
        local withheld = nil
        if LC.maxIn > 0 and #input > LC.maxIn then
          withheld = numText(#input)
          input = ''
        end
        -- THE PACKED REPLY (see the header): one text a job, in one concatenation (Lua 5.1 joins
        -- a chain of `..` in one pass, one string made); the lengths' texts made once per length
        -- a call (most jobs of a claim share theirs). Under callgrind (commitOps.ts, plain) this
        -- costs Redis what the 3 reply values a job did; a text per job made by packLen calls
        -- cost 1.5% more per job, and 7 pieces a job joined by one table.concat 1.3% more.
        -- THE COMPACT REPLY (see the header) ends it: nothing more (a 0 count) when the job is as
        -- the one before it and has none of the fields most jobs do not have (Lua compares
        -- interned strings by address); else its texts, in the same chain, each packed once a
        -- call (packOnce; the last 9 a constant when the job has none: PACKED_NONE). Packed apart
        -- (a table of 14 texts, then table.concat, then the job's text) the claim of a due parked
        -- pipeline cost Redis ~40k instructions a job more under callgrind
        -- (bench/probes/resumeParts.ts): each text made costs its hashing, ~13 instructions a
        -- byte, and its allocation.
        local n1, n2, n3 = #id, #token, #input
        local p1, p2, p3 = lens[n1] or packLenOnce(lens, n1), lens[n2] or packLenOnce(lens, n2),
          lens[n3] or packLenOnce(lens, n3)
        nc = nc + 1
        local rare = attempt or lr or par or opt or io or pq or ib or rl or withheld
        if sn or rare then
          sn = sn or ''
          local tail = PACKED_NONE
          if rare then
            local parentState = ''
            if par and (not pq or pq == '') then parentState = 'live' end
            attempt, lr, par, opt = attempt or '', lr or '', par or '', opt or ''
            io, pq, ib, rl = io or '0', pq or '', ib or '', rl or ''
            tail = (packed[attempt] or packOnce(packed, lens, attempt)) .. (packed[lr] or packOnce(packed, lens, lr))
              .. (packed[par] or packOnce(packed, lens, par)) .. (packed[opt] or packOnce(packed, lens, opt))
              .. (packed[io] or packOnce(packed, lens, io)) .. (packed[pq] or packOnce(packed, lens, pq))
              .. (packed[ib] or packOnce(packed, lens, ib)) .. (packed[parentState] or packOnce(packed, lens, parentState))
              .. (packed[rl] or packOnce(packed, lens, rl))
          end
          local nsn = #sn
          if withheld then tail = tail .. (packed[withheld] or packOnce(packed, lens, withheld)) end
          local head = p1 .. id .. p2 .. token .. p3 .. input .. (withheld and '\15' or '\14')
            .. (packed[m] or packOnce(packed, lens, m)) .. (packed[v] or packOnce(packed, lens, v))
            .. (packed[ma] or packOnce(packed, lens, ma)) .. (packed[st] or packOnce(packed, lens, st))
            .. (lens[nsn] or packLenOnce(lens, nsn))
          -- THE PIECES: the snapshot goes into the reply as the text it is, between its job's two
          -- others, not copied into a text of the job's: each text made costs Redis its hashing
          -- (~13 instructions a byte under callgrind), and table.concat copies the pieces into
          -- the reply without (a snapshot of ~150 bytes: ~0.5k instructions a job less).
          claimed[np + 1], claimed[np + 2], claimed[np + 3] = head, sn, tail
          np = np + 3
          lastM, lastV, lastMa, lastSt = m, v, ma, st
        elseif m ~= lastM or v ~= lastV or ma ~= lastMa or st ~= lastSt then
          np = np + 1
          claimed[np] = p1 .. id .. p2 .. token .. p3 .. input .. '\4'
            .. (packed[m] or packOnce(packed, lens, m)) .. (packed[v] or packOnce(packed, lens, v))
            .. (packed[ma] or packOnce(packed, lens, ma)) .. (packed[st] or packOnce(packed, lens, st))
          lastM, lastV, lastMa, lastSt = m, v, ma, st
        else
          np = np + 1
          claimed[np] = p1 .. id .. p2 .. token .. p3 .. input .. '\0'
        end
      end
      -- A head of its key left `queued` (roundRobin: include/lcFlow.lua's lcHeadLeft).
      if ck and LC.rr then lcHeadLeft(ck, not inLine) end
    end
    -- Jobs set aside for a full key do not count: pop on for others, up to the cap. A job
    -- that was broken or cancelled unrun counts, as before the gate (no second pop for it).
    -- The early batch counts apart (held, not in `want`: it takes no slot of the worker's).
    if early then
      held = n
    else
      got = got + n - parked
      if not pre and (parked == 0 or n < asked or popped >= FLOW_POP_CAP) then lineDone = true end
      asked = want - got
    end
  end
  if skipN > 0 then
    -- The due jobs over the queue's rate, next in line: ended cancelled, unrun (mode 'skip').
    local over = lcTakeQueued(skipN, false)
    for i = 1, #over do
      local j = lcRead(over[i])
      j.popped = true
      if j.ck and LC.rr then lcHeadLeft(j.ck, true) end
      if not j.st then
        lcSetBroken(over[i], 'job record missing or has no machine')
        if LC.rr and not j.ck then lcHeadsAfresh() end
      else
        lcMove(j, 'cancelled', { kind = 'cancelled', log = { '{"type":"cancelled","reason":'
          .. cjson.encode('queue over its rate limit (mode skip)') .. '}' } })
      end
    end
  end
  lcFlush()
  if (got >= want and not throttled) or popped >= FLOW_POP_CAP then
    -- There may be more: let another idle supervisor wake and take some. (After the pop cap,
    -- the jobs behind the ones set aside are there to be claimed: this supervisor, or another,
    -- must look again at once, not at its idle timeout.)
    if lcQueuedAny() or lcDueLeft() then redis.call('ZADD', markerKey, '0', 'w') end
  else
    local first = redis.call('ZRANGE', delayedKey, '0', '0', 'WITHSCORES')
    if first[2] then nextDue = first[2] end
    -- THE EARLY LEASE: the next entry that comes within the lead, if that is sooner.
    if earlyNext and (not nextDue or tonumber(nextDue) > earlyNext) then nextDue = math.ceil(earlyNext) end
    -- A key whose line waits for its rate: the idle supervisor wakes when it is due.
    if keyGate then
      local kd = lcFirstDue('kdue')
      if kd and (not nextDue or tonumber(nextDue) > kd) then nextDue = kd end
    end
    -- A machine whose rate line waits: likewise.
    if mrated then
      local md = lcFirstDue('mdue')
      if md and (not nextDue or tonumber(nextDue) > md) then nextDue = md end
    end
  end
  return nextDue, nc, held
end
