--- @include "lcState"
--- @include "lcRead"
--- @include "lcLeave"
--- @include "lcMove"
--- @include "lcBatch"
--- @include "addLog"
-- DEDUPE (docs/dedupe.md): what an enqueue with a dedupe key (or an idempotency key, the `ttl`
-- mode under its own record) makes. MemoryStore's twin is memory/dedupe.ts.
-- The record `<kp>dd:<key>` (an idempotency key's: `<kp>idem:<key>`) is text: the kept job's id,
-- or with keepLast "<started id> <pending id>". It always expires (PX): a `ttl` record after the
-- window, any other after the store's idempotency TTL at the latest (no leak); and lcMove's
-- DEDUPE RELEASE clears it when its job ends (a `ttl` record is not tied to its job: the window is).
-- A job made under a key other than `ttl`'s carries `dk` (the key) and, ALWAYS, an explicit audit
-- log (its "enqueued" entry names the key): lcDonePlain sends a job with a log through lcMove,
-- so every ending of such a job passes the release.

local DEDUPE_MODES = { untilDone = true, ttl = true, debounce = true }

-- The dedupe call `dedupeEnqueue` takes, from a job's fields as text or numbers (key, mode,
-- ttlMs, maxDelayMs, keepLast: true or '1'); nil and why when they are not one the client would
-- have sent (validateEnqueue.ts). `idemTtl`: the store's idempotency TTL, the longest any record
-- but a `ttl` one lives.
local function dedupeOf(kp, key, mode, ttlMs, maxDelayMs, keepLast, idemTtl)
  local ttl, maxDelay = tonumber(ttlMs), tonumber(maxDelayMs)
  if type(key) ~= 'string' or key == '' or not DEDUPE_MODES[mode] then return nil, 'key or mode' end
  if mode ~= 'untilDone' and not (ttl and ttl > 0) then return nil, 'ttlMs' end
  if maxDelayMs ~= nil and maxDelayMs ~= '' and not (maxDelay and maxDelay > 0) then return nil, 'maxDelayMs' end
  local recTtl = nil
  if mode == 'untilDone' and ttl then recTtl = ttl
  elseif mode ~= 'ttl' then recTtl = math.max(idemTtl, (ttl or 0) + (maxDelay or 0)) end
  return { rk = kp .. 'dd:' .. key, key = key, mode = mode, ttl = ttl, maxDelay = maxDelay,
    keepLast = keepLast == true or keepLast == '1', recTtl = recTtl }
end

-- The fields of a job made under `d` (appended to the HSET list `args`; `delay`: its delay):
-- `dk` and ALWAYS an explicit log, whose "enqueued" entry names the key (see the header), unless
-- `d` is a `ttl` one (its record is not tied to the job). Returns true when it wrote the log.
local function dedupeFields(args, d, now, delay)
  if not d or not d.recTtl then return false end
  args[#args + 1] = 'dk'; args[#args + 1] = d.key
  args[#args + 1] = 'ls'; args[#args + 1] = 1
  args[#args + 1] = 'l1'; args[#args + 1] = now .. ' {"type":"enqueued",' ..
    (delay > 0 and '"delayMs":' .. delay .. ',' or '') .. '"dedupe":{"key":' .. cjson.encode(d.key) ..
    ',"mode":"' .. d.mode .. '"}}'
  return true
end

-- 'missing' | 'ended' | 'unstarted' (queued, never claimed) | 'started'
local function ddPhase(id)
  local st, ct = unpack(redis.call('HMGET', LC.kp .. 'job:' .. id, 'st', 'ct'))
  if not st then return 'missing' end
  if FINAL[st] then return 'ended' end
  if st == 'queued' and not ct then return 'unstarted' end
  return 'started'
end

-- Tells kept job `keptId` of a deduplicated enqueue: an audit entry naming the caller's key, its
-- mode and the id the enqueue would have made, and a `deduplicated` stream entry. With `input`
-- the enqueue replaces the kept job's input (debounce, keepLast); with `runAt` it moves its run
-- time too (debounce: the quiet period starts again).
local function ddKeep(keptId, d, newId, input, runAt)
  local j = lcRead(keptId, true)
  -- A `ttl` record may outlive its job (retention deleted it): the id is still the answer.
  if not j.st then return end
  local entry = '{"type":"deduplicated","key":' .. cjson.encode(d.key) .. ',"mode":"' .. d.mode ..
    '","discarded":"' .. newId .. '"' .. (input and ',"replaced":true' or '') .. '}'
  if runAt then
    -- Its index may hold a write of this very call (made earlier in the batch): flushed first,
    -- so that the leave and the new place below come after it.
    lcFlush()
    j = lcRead(keptId, true)
    lcLeave(j)
    lcMove(j, 'queued', { kind = 'deduplicated', log = { entry }, runAt = runAt }, { 'in', input })
    return
  end
  local args = input and { 'in', input } or {}
  addLog(args, j.jk, j.ls, LC.now, { entry })
  redis.call('HSET', j.jk, unpack(args))
  lcTell(keptId, 'deduplicated', j.st)
end

-- Debounce: the kept job's new run time, the quiet period from now, and never past maxDelayMs
-- after its first enqueue.
local function ddRunAt(keptId, d)
  local runAt = LC.now + d.ttl
  if d.maxDelay then
    local ca = tonumber(redis.call('HGET', LC.kp .. 'job:' .. keptId, 'ca')) or LC.now
    runAt = math.min(runAt, ca + d.maxDelay)
  end
  return runAt
end

-- An enqueue under `d` = { rk (record key), key, mode, ttl, maxDelay, keepLast, recTtl } of a new
-- job `id` with `input` and `delay`. Returns the kept job's id (nothing is to be made), or nil
-- and the delay the new job gets, having claimed the record for it.
local function dedupeEnqueue(d, id, input, delay)
  local rec = redis.call('GET', d.rk)
  if rec then
    local cur, nxt = string.match(rec, '^(%S+) (%S+)$')
    if not cur then cur = rec end
    if d.mode == 'ttl' then ddKeep(cur, d, id); return cur end
    local phase = ddPhase(cur)
    if phase == 'unstarted' then
      if d.mode == 'debounce' then
        ddKeep(cur, d, id, input, ddRunAt(cur, d))
        -- The record lives as long as the job it keeps may be pushed back.
        redis.call('PEXPIRE', d.rk, d.recTtl)
      elseif d.keepLast then ddKeep(cur, d, id, input)
      else ddKeep(cur, d, id) end
      return cur
    elseif phase == 'started' and (d.keepLast or d.mode ~= 'debounce') then
      -- A job that started is never changed. Without keepLast it is the answer (untilDone; a
      -- debounce makes a new job, below); with it, one pending job holds the latest input and
      -- runs once the started one ends.
      if not d.keepLast then ddKeep(cur, d, id); return cur end
      if nxt and ddPhase(nxt) == 'unstarted' then ddKeep(nxt, d, id, input); return nxt end
      redis.call('SET', d.rk, cur .. ' ' .. id, 'KEEPTTL')
      -- Due when the started one ends (DEDUPE RELEASE in lcMove), at the latest when the record
      -- would have expired: a pending job is never stranded.
      local left = redis.call('PTTL', d.rk)
      return nil, (left > 0 and left or d.recTtl)
    end
    -- 'missing' or 'ended' (or a debounce's job started): the key is free.
  end
  redis.call('SET', d.rk, id, 'PX', d.mode == 'ttl' and d.ttl or d.recTtl)
  if d.mode == 'debounce' then return nil, d.maxDelay and math.min(d.ttl, d.maxDelay) or d.ttl end
  return nil, delay
end
