--[[ enqueue: adds a batch of jobs to one queue atomically.
KEYS[1] queued zset  KEYS[2] delayed zset  KEYS[3] meta hash  KEYS[4] events stream  KEYS[5] marker zset
ARGV[1] key prefix of the queue ("<prefix>:{<queue>}:"), ARGV[2] events max length,
ARGV[3] idempotency-key TTL ms, ARGV[4] job count n, ARGV[5] values per job w, then
  w = 8: 8 per job: id, machine, version, input JSON, band, delayMs, maxAttempts, extras|''
  w = 3 (a batch whose jobs share their machine, version, band, delayMs and maxAttempts, as
  most do): those five once (ARGV[6..10]), then 3 per job: id, input JSON, extras|''. Each job
  value Redis parses and Lua holds costs Redis CPU (~0.8k instructions under callgrind): the
  shared form saves five a job.
  w = 2: the shared form of a batch where no job has extras (most): 2 per job, id, input JSON.
  ARGV[5] 'm' (w = 2): the same for a batch whose every job is a minimal record and has no other
  extras: a record 'minimal' for each, without a JSON object a job to decode (which cost a
  minimal job's enqueue 30k instructions more than a plain one's, 77k against 46k).
  ARGV[5] 'g' (w = 2): a batch of the form w = 2 whose ids the client grouped (THE IDS GROUPED,
  src/store/redis/idGroups.ts), the grouped text one value more, after the jobs': the plain
  batch's stream entry holds it (field `jg`) instead of every id (`js`).
  extras (rare, so most jobs cost no parsing): a JSON object of the fields below that are set,
  under NewJob's own names (src/store/types.ts; enqueueOps.ts): idempotencyKey, parentId,
  options, parentQueue (when not this one), group (the fan-out's), index (in the fan-out),
  revive (true), parentToken (the parent's lease token), dedupeKey, dedupeMode (untilDone | ttl |
  debounce), dedupeTtlMs, dedupeMaxDelayMs, dedupeKeepLast ('1'): include/dedupe.lua,
  concurrencyKey (its `ck`, include/lcFlow.lua), record ('minimal': a minimal record, field `rm`,
  made without stream or audit entries; include/lcMove.lua), watcher (the id of a waiter that
  will wait for the job's end: the job is made with it in `wt`, include/pushResult.lua, so an end
  before the caller's next call is pushed to it too; a job the enqueue keeps is marked as
  watch-1.lua marks one, include/addWatcher.lua)
  The 8 values per job keep their places: each has one meaning, whatever the job, and naming
  them would cost every job of a bulk enqueue a decoded table.
Returns: the number of jobs when every job was created under its own id; otherwise flat
{id1, created1, id2, created2, ...}; created is 0 when a job with that id exists already (a
client that resends an enqueue whose reply was lost gets the job it made, never a reset one;
a parent that re-runs its fan-out after a crash does not fan out twice); created is 2 when a
dedupe key (or an idempotency key: the `ttl` mode's alias) kept an existing job, whose id is
returned instead (include/dedupe.lua: it may have replaced that job's input). A job with a watcher
that was not created has 4 added to its 0 or 2 when the watcher is now on its record (it is
unfinished); without, the caller reads the record (finished, or gone).
A child enqueued with revive true (a redriven parent's fan-out, see retryDead-6.lua) whose
existing record ended failed or cancelled is made anew under its id.
Errors: BAD_ENQUEUE <job index> <why> when an argument is malformed; LEASE_LOST <parent id> when a
child on its parent's queue comes with a lease token its parent does not hold (THE FENCE: the
fan-out of a worker whose lease passed). Nothing is written then.
Derived keys (job, idem, dd, children index) carry the queue's hash tag.
]]
--- @include "nowMs"
--- @include "lcState"
--- @include "lcCreate"
--- @include "lcForget"
--- @include "lcBatch"
--- @include "addLog"
--- @include "dedupe"
--- @include "addWatcher"
-- The keys this script names (the lifecycle derives the others from the prefix, ARGV[1]).
local metaKey = KEYS[3]
local kp = ARGV[1]
local maxLen = ARGV[2]
local idemTtl = tonumber(ARGV[3])
local n = tonumber(ARGV[4])
-- w values per job from ARGV[first]; in the shared form (w = 3) the five shared values sit
-- before them. oIn and oX: the input's and the extras' places in a job's values (w = 2: none).
local batchMinimal = ARGV[5] == 'm'
-- THE IDS GROUPED (w = 2): the grouped text, the last value; nil: none.
local grouped = ARGV[5] == 'g' and ARGV[#ARGV] or nil
local w = (ARGV[5] == '2' or batchMinimal or grouped) and 2 or ARGV[5] == '3' and 3 or ARGV[5] == '8' and 8 or nil
local first, oIn, oX = 6, 3, 7
if w == 3 then first, oIn, oX = 11, 1, 2 elseif w == 2 then first, oIn, oX = 11, 1, nil end
local sharedForm = w ~= 8
-- NO HALF-APPLIED CALL: everything is checked before the first write.
if not idemTtl or idemTtl <= 0 or not n or n < 1 or n % 1 ~= 0 or not w
    or #ARGV ~= first - 1 + n * w + (grouped and 1 or 0) or grouped == '' then
  return redis.error_reply('BAD_ENQUEUE 0 bad count or idempotency TTL')
end
-- A job's machine, version and max attempts: its own (w = 8, at b + 1, b + 2, b + 6) or shared
-- (taken inline below: a function call a job cost more than its body).
local sharedM, sharedV, sharedMa = ARGV[6], ARGV[7], ARGV[10]
-- Numbers are parsed once, and the common values not at all: tonumber goes through strtod,
-- whose cost per job was a large part of an enqueue's when every job parsed three numbers.
-- BANDS (a band by its text) and BAND are generated from TypeScript (luaConstants.ts).
local maChecked = {}
local extras, bands, delays, keys = {}, {}, {}, {}
-- The extras read as text (revive is a boolean).
local EXTRA_TEXTS = { 'idempotencyKey', 'parentId', 'options', 'parentQueue', 'group', 'index', 'parentToken',
  'dedupeKey', 'dedupeMode', 'dedupeTtlMs', 'dedupeMaxDelayMs', 'dedupeKeepLast', 'concurrencyKey', 'record',
  'watcher' }
-- The band's and delay's texts: a job's own (w = 8) or shared, parsed once then.
local bandText, delayText = ARGV[8], ARGV[9]
local band1, delay1
-- A batch without extras (w = 2): its shared values checked once, then only its ids (the
-- general loop below took ~1k instructions a job more under callgrind).
local firstI = 0
if w == 2 then
  if ARGV[first] == '' or sharedM == '' then return redis.error_reply('BAD_ENQUEUE 0 id or machine missing') end
  band1 = BANDS[bandText]
  if not band1 then return redis.error_reply('BAD_ENQUEUE 0 band') end
  delay1 = delayText == '0' and 0 or tonumber(delayText)
  if not delay1 or delay1 < 0 or delay1 ~= delay1 or delay1 == math.huge then
    return redis.error_reply('BAD_ENQUEUE 0 delay')
  end
  local mn = tonumber(sharedMa)
  if not mn or mn < 1 or mn % 1 ~= 0 then return redis.error_reply('BAD_ENQUEUE 0 max attempts') end
  keys[1] = kp .. 'job:' .. ARGV[first]
  for i = 1, n - 1 do
    local id = ARGV[first + i * 2]
    if id == '' then return redis.error_reply('BAD_ENQUEUE ' .. i .. ' id or machine missing') end
    keys[i + 1] = kp .. 'job:' .. id
  end
  firstI = n
end
for i = firstI, n - 1 do
  local b = first + i * w
  local m, ma = sharedM, sharedMa
  if not sharedForm then m, ma = ARGV[b + 1], ARGV[b + 6] end
  if ARGV[b] == '' or m == '' then return redis.error_reply('BAD_ENQUEUE ' .. i .. ' id or machine missing') end
  keys[i + 1] = kp .. 'job:' .. ARGV[b]
  if w == 8 or i == 0 then
    if w == 8 then bandText, delayText = ARGV[b + 4], ARGV[b + 5] end
    band1 = BANDS[bandText]
    if not band1 then return redis.error_reply('BAD_ENQUEUE ' .. i .. ' band') end
    delay1 = delayText == '0' and 0 or tonumber(delayText)
    if not delay1 or delay1 < 0 or delay1 ~= delay1 or delay1 == math.huge then
      return redis.error_reply('BAD_ENQUEUE ' .. i .. ' delay')
    end
  end
  bands[i], delays[i] = band1, delay1
  if not maChecked[ma] then
    local mn = tonumber(ma)
    if not mn or mn < 1 or mn % 1 ~= 0 then return redis.error_reply('BAD_ENQUEUE ' .. i .. ' max attempts') end
    maChecked[ma] = true
  end
  if oX and ARGV[b + oX] ~= '' then
    local ok, x = pcall(cjson.decode, ARGV[b + oX])
    if not ok or type(x) ~= 'table' then return redis.error_reply('BAD_ENQUEUE ' .. i .. ' extras') end
    -- Each as text, '' when not set.
    for _, f in ipairs(EXTRA_TEXTS) do
      local v = x[f]
      if v == nil or v == cjson.null then x[f] = ''
      elseif type(v) == 'string' or type(v) == 'number' then x[f] = tostring(v)
      else return redis.error_reply('BAD_ENQUEUE ' .. i .. ' extras: ' .. f) end
    end
    if x.dedupeKey ~= '' then
      -- The dedupe as include/dedupe.lua reads it; the client checked it (validateEnqueue.ts).
      local d, why = dedupeOf(kp, x.dedupeKey, x.dedupeMode, x.dedupeTtlMs, x.dedupeMaxDelayMs,
        x.dedupeKeepLast, idemTtl)
      if not d then return redis.error_reply('BAD_ENQUEUE ' .. i .. ' dedupe ' .. why) end
      if x.idempotencyKey ~= '' or x.parentId ~= '' then
        return redis.error_reply('BAD_ENQUEUE ' .. i .. ' dedupe with an idempotency key or a parent')
      end
      x.dd = d
    elseif x.idempotencyKey ~= '' then
      -- An idempotency key is the `ttl` mode under its own record, for the store's idempotency TTL.
      x.dd = { rk = kp .. 'idem:' .. x.idempotencyKey, key = x.idempotencyKey, mode = 'ttl', ttl = idemTtl }
    end
    extras[i] = x
  end
end
-- THE FENCE for children on their parent's queue (the parent's slot is this one), once per parent.
local fenced = {}
for i = 0, n - 1 do
  local x = extras[i]
  if x and x.parentId ~= '' and x.parentQueue == '' and x.parentToken ~= '' and not fenced[x.parentId] then
    if redis.call('HGET', kp .. 'job:' .. x.parentId, 'tk') ~= x.parentToken then
      return redis.error_reply('LEASE_LOST ' .. x.parentId)
    end
    fenced[x.parentId] = true
  end
end
local now = nowMs()
LC.kp, LC.maxLen, LC.now = kp, maxLen, now
local nowText = lcNowText()
local seq = redis.call('HINCRBY', metaKey, 'seq', numText(n)) - n
-- The reply's pairs, kept from the first job not created under its own id on (the ones before
-- it are filled in then, from ARGV): most batches create every job and answer n.
local out = nil
-- Most batches create every job: one EXISTS over all their keys saves a look-up per job.
local anyExists = false
for s = 1, n, 4000 do
  if redis.call('EXISTS', unpack(keys, s, math.min(s + 3999, n))) > 0 then anyExists = true; break end
end
-- THE PLAIN BATCH (most enqueues): the shared form without extras (w = 2), due now, no id
-- taken. Each job is its record (include/lcCreate.lua's lcCreateRecord), its place in `queued` and
-- its share of the batch's stream entry (none for minimal records), written as lcFlush writes
-- them (nothing else is pending in this call), without the general loop's per-job tests,
-- tables and calls below. Scores are integers below 2^53: '%d' prints them as numText does.
if w == 2 and not anyExists and delay1 == 0 then
  local base = band1 * BAND + seq
  -- The fields past the base ones, the same for every job of the batch (most batches none).
  local args = nil
  if band1 ~= 2 or batchMinimal then
    args = {}
    if band1 ~= 2 then args[#args + 1] = 'pr'; args[#args + 1] = numText(band1) end
    if batchMinimal then args[#args + 1] = 'rm'; args[#args + 1] = '1' end
  end
  local fmt = string.format
  local flat, ids = {}, {}
  if batchMinimal then redis.call('HSET', kp .. 'flow', 'minimal', '1') end
  -- THE READY LIST (include/lcReady.lua): the normal band's jobs go to the back of `ready`, in
  -- the order of their fresh places, each above the tail (THE RULE, as lcEnterQueued holds it:
  -- this call made the seq, and nothing else enters in it); the other bands to `queued`.
  local ready = band1 == 2
  for i = 1, n do
    local id = ARGV[first + i * 2 - 2]
    local score = fmt('%d', base + i)
    lcCreateRecord(keys[i], sharedM, sharedV, ARGV[first + i * 2 - 1], score, sharedMa, nowText, args)
    if not ready then
      flat[i * 2 - 1] = score
      flat[i * 2] = id
    end
    ids[i] = id
  end
  if ready then
    for s = 1, n, 4000 do redis.call('RPUSH', kp .. 'ready', unpack(ids, s, math.min(s + 3999, n))) end
  else
    zaddMany(kp .. 'queued', flat)
  end
  if not batchMinimal then emitMany(kp .. 'events', maxLen, nowText, ids, 'enqueued', 'queued', grouped) end
  redis.call('ZADD', kp .. 'marker', '0', 'w')
  return n
end
local FINISHED_UNDONE = { failed = true, cancelled = true }
local keyedSet, minimalSet = false, false
for i = 0, n - 1 do
  local b = first + i * w
  local id = ARGV[b]
  local idem, par, opt, pq, pg, pi, revive, dd, ck, rm = '', '', '', '', '', '', false, nil, '', batchMinimal
  local x = extras[i]
  if x then
    idem, par, opt, pq, pg, pi, dd = x.idempotencyKey, x.parentId, x.options, x.parentQueue, x.group, x.index, x.dd
    revive = x.revive == true
    ck = x.concurrencyKey
    -- A child or a deduped job keeps a full record: its parent's fan-in and its dedupe key's
    -- release read it as it ends (the client never asks for both; a foreign producer is held to it).
    rm = x.record == 'minimal' and par == '' and x.dedupeKey == ''
  end
  local created = 1
  local jk = keys[i + 1]
  local st = anyExists and redis.call('HGET', jk, 'st')
  if st then
    if par ~= '' and revive and FINISHED_UNDONE[st] then
      lcForget({ id = id, jk = jk, st = st })
    else
      created = 0
    end
  elseif dd then
    local kept, delay = dedupeEnqueue(dd, id, ARGV[b + oIn], delays[i] or delay1)
    if kept then
      id = kept
      created = 2
    else
      delays[i] = delay
    end
  end
  if created == 1 then
    local band = bands[i] or band1
    -- Sent twice (its `qs`, its place in `queued`): formatted once (include/numText.lua).
    local place = band * BAND + seq + i + 1
    local score = numText(place)
    local delay = delays[i] or delay1
    -- No `a` (attempt 1 is the default everywhere), no `ua` (decodeJob falls back to `ca`),
    -- no `pr` for the normal band (decodeJob and promoteDue default to it) and, for a job due
    -- now, no log field: its "enqueued" entry is implicit (`ca`, see include/addLog.lua).
    -- The fields past the base ones (lcCreate writes those), most jobs none.
    local args = {}
    if band ~= 2 then args[#args + 1] = 'pr'; args[#args + 1] = numText(band) end
    if delay > 0 then args[#args + 1] = 'ra'; args[#args + 1] = numText(now + delay) end
    if rm then
      args[#args + 1] = 'rm'; args[#args + 1] = '1'
      -- The queue now has a minimal record: the finishes read `rm` (lcState.lua's LC.minimal).
      if not minimalSet then redis.call('HSET', kp .. 'flow', 'minimal', '1'); minimalSet = true end
    end
    if not dedupeFields(args, dd, now, delay) and delay > 0 and not rm then
      args[#args + 1] = 'ls'; args[#args + 1] = 1
      args[#args + 1] = 'l1'; args[#args + 1] = now .. ' {"type":"enqueued","delayMs":' .. delay .. '}'
    end
    if idem ~= '' then args[#args + 1] = 'ik'; args[#args + 1] = idem end
    if par ~= '' then
      args[#args + 1] = 'par'; args[#args + 1] = par
      args[#args + 1] = 'pq'; args[#args + 1] = pq
      args[#args + 1] = 'pg'; args[#args + 1] = pg
      args[#args + 1] = 'pi'; args[#args + 1] = pi
      redis.call('ZADD', kp .. 'children:' .. par, tonumber(pi) or 0, id)
    end
    if opt ~= '' then args[#args + 1] = 'opt'; args[#args + 1] = opt end
    -- The waiter's watch, from the start (read from `x`: a job without extras costs one test).
    if x and x.watcher ~= '' then args[#args + 1] = 'wt'; args[#args + 1] = x.watcher end
    if ck ~= '' then
      args[#args + 1] = 'ck'; args[#args + 1] = ck
      -- The queue now has a job with a key: the claim and the finishes read `ck` (lcState.lua).
      if not keyedSet then redis.call('HSET', kp .. 'flow', 'keyed', '1'); keyedSet = true end
    end
    local m, v, ma = sharedM, sharedV, sharedMa
    if not sharedForm then m, v, ma = ARGV[b + 1], ARGV[b + 2], ARGV[b + 6] end
    lcCreate(id, jk, m, v, ARGV[b + oIn], score, ma, nowText, args[1] and args or nil,
      delay > 0 and now + delay or nil, ck ~= '' and ck or nil, rm, place)
  end
  if created ~= 1 then
    if x and x.watcher ~= '' then
      -- The job kept (this id's, or the one a key named): watched now if it is unfinished.
      local kjk = kp .. 'job:' .. id
      local kst, kwt = unpack(redis.call('HMGET', kjk, 'st', 'wt'))
      if addWatcher(kjk, kst, kwt, x.watcher) then created = created + 4 end
    end
    if not out then
      out = {}
      for k = 0, i - 1 do out[2 * k + 1] = ARGV[first + k * w]; out[2 * k + 2] = 1 end
    end
  end
  if out then
    out[2 * i + 1] = id
    out[2 * i + 2] = created
  end
end
-- The index writes, one combined 'enqueued' stream entry for the batch, and a wake-up of one
-- idle supervisor (it recomputes its sleep for delayed jobs too).
lcFlush()
if not out then return n end
return out
