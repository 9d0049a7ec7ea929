--[[ commit: a worker's fenced writes, then a claim of new work: one round trip.
KEYS: 1 queued, 2 delayed, 3 active, 4 meta, 5 events, 6 marker, 7 waiting, 8 done, 9 failed,
      10 cancelled, 11 dead, 12 broken
ARGV: 1 key prefix, 2 events max length, 3 retention ms (TTL of a finished parent's fan-out
      keys; records themselves are deleted by sweep-2.lua), 4 worker id, 5 lease ms,
      6 how many jobs to claim, 7 machines with a load phase as "|a|b|", 8 op count,
      then per op: kind, id, token, f1, f2, f3, f4, f5, log entries joined by "\n" (9 values),
      or, for the common plain done (no snapshot, no state, log exactly {"type":"done"}), the 4
      values 'D', id, token, output: fewer values to pass and to read (encodeOps.ts)
  checkpoint: f1 status, f2 snapshot|'', f3 state|'', f4 progress|'', f5 inbox events consumed in all|''
  done: f1 output, f2 snapshot|'' (derived from st/a/ma), f3 state       fail: f1 error, f2 snapshot, f3 state
  retry: f1 error, f2 delay ms, f3 next attempt, f4 snapshot|''
  cancelled: f2 snapshot|'', f3 state|''         requeue: -
  park: f1 wake-at ms|'', f2 snapshot, f3 state, f5 inbox events consumed in all|''
  broken: f1 error
Returns { written (1|0 per op), claimed, next due ms|false, Redis time ms }; claimed holds 8
values per job: id, token, machine, version, input, max attempts, status, then '' or a nested
array { snapshot, attempt, lease requeues, parent id, options, inbox position, parent queue,
has inbox, parent state (live|cancelled|missing, for a child whose parent is on this queue) } (each '' when
absent; most jobs have none of them).

THE FENCE: an op is applied only when the job's lease token equals the op's token. A worker
whose lease passed (reaped, requeued, claimed by another) MUST NOT change the job: its op is
skipped and reported 0, and the worker drops the job.
]]
--@include common
--@include promote
--@include fanin
local kp, maxLen, ttl = ARGV[1], ARGV[2], tonumber(ARGV[3])
local workerId, leaseMs, want, loadSet = ARGV[4], tonumber(ARGV[5]), tonumber(ARGV[6]), ARGV[7]
local nOps = tonumber(ARGV[8])
local hasLoadSet = loadSet ~= '||' and loadSet ~= ''
local now = nowMs()
local written = {}
local activeRem = {}
-- Jobs that reached done in this call: one combined stream entry for all (see emitMany).
local doneIds = {}

-- Jobs that reached done in this call, as ZADD arguments for the done index (one ZADD).
local doneIndex = {}

-- Checkpoints of this call, by status: one combined stream entry each (a pipeline writes one
-- per step). Flushed before any other entry of this call, so a job's entries keep their order.
local checkpointIds = { working = {}, loading = {} }
local function flushCheckpoints()
  for status, ids in pairs(checkpointIds) do
    if #ids > 0 then
      emitMany(KEYS[5], maxLen, now, ids, 'checkpoint', status)
      checkpointIds[status] = {}
    end
  end
end

-- `args` gets the log (unless `implicitDone`: see addLog in common.lua), `fa` and, but for
-- done (which deletes it), an empty token. No `ua`: `fa` is a finished job's update time.
-- The record is final after this HSET, so the job's watchers (`wt` as read) get it here.
local function finish(jk, id, indexKey, args, ls, log, implicitDone, wt)
  if not implicitDone then addLog(args, jk, ls, now, log) end
  args[#args + 1] = 'fa'; args[#args + 1] = now
  if indexKey ~= KEYS[8] then args[#args + 1] = 'tk'; args[#args + 1] = '' end
  redis.call('HSET', jk, unpack(args))
  pushResult(kp, jk, id, wt)
  if indexKey == KEYS[8] then
    doneIndex[#doneIndex + 1] = now; doneIndex[#doneIndex + 1] = id
  else
    redis.call('ZADD', indexKey, now, id)
  end
  activeRem[#activeRem + 1] = id
end

local DONE_LOG = { '{"type":"done"}' }
local b = 9
for _ = 1, nOps do
  local kind, id, token = ARGV[b], ARGV[b + 1], ARGV[b + 2]
  local f1, f2, f3, f4, f5, log
  if kind == 'D' then
    kind, f1, f2, f3, log = 'done', ARGV[b + 3], '', '', DONE_LOG
    b = b + 4
  else
    f1, f2, f3, f4, f5 = ARGV[b + 3], ARGV[b + 4], ARGV[b + 5], ARGV[b + 6], ARGV[b + 7]
    log = splitEntries(ARGV[b + 8])
    b = b + 9
  end
  local jk = kp .. 'job:' .. id
  local cur = redis.call('HMGET', jk, 'tk', 'ls', 'qs', 'ib', 'par', 'fg', 'wt')
  -- notifyParent reads the parent's queue, group and index itself (only for children).
  local parent = nil
  if not cur[5] then parent = {} end
  if cur[1] ~= token or token == '' then
    written[#written + 1] = 0
  else
    written[#written + 1] = 1
    local ls = cur[2]
    if kind == 'checkpoint' then
      local args = { 'st', f1, 'ua', now }
      if f2 ~= '' then args[#args + 1] = 'sn'; args[#args + 1] = f2 end
      if f3 ~= '' then args[#args + 1] = 's'; args[#args + 1] = f3 end
      if f4 ~= '' then args[#args + 1] = 'p'; args[#args + 1] = f4 end
      if f5 ~= '' then args[#args + 1] = 'io'; args[#args + 1] = f5 end
      addLog(args, jk, ls, now, log)
      redis.call('HSET', jk, unpack(args))
      local ids = checkpointIds[f1]
      if ids then ids[#ids + 1] = id else emit(KEYS[5], maxLen, now, id, 'checkpoint', f1) end
    elseif kind == 'done' then
      local args = { 'st', 'done', 'o', f1 }
      if f3 ~= '' then args[#args + 1] = 's'; args[#args + 1] = f3 end
      -- No snapshot sent: decodeJob derives it. A simple job has no older `sn` here (only its
      -- fail/cancel write one, both final; a redrive deletes it, see retryDead-6.lua).
      if f2 ~= '' then args[#args + 1] = 'sn'; args[#args + 1] = f2 end
      -- Log still implicit and this is its plain "done": it stays implicit (stamp `fa`).
      local implicit = not ls and #log == 1 and log[1] == '{"type":"done"}'
      finish(jk, id, KEYS[8], args, ls, log, implicit, cur[7])
      -- A finished record needs neither its token nor its place in line: gone, its listpack
      -- stays a size class smaller. (No TTL: sweep-2.lua deletes it by the done index.)
      redis.call('HDEL', jk, 'tk', 'qs')
      if cur[5] then notifyParent(kp, jk, id, 'done', '{"s":"done","o":' .. f1 .. '}', now, maxLen, nil, ttl) end
      if cur[6] then expireFans(kp, jk, id, ttl, cur[6]) end
      if cur[4] then redis.call('DEL', kp .. 'inbox:' .. id) end
      doneIds[#doneIds + 1] = id
    elseif kind == 'fail' or kind == 'broken' then
      local args = { 'st', 'failed', 'e', f1 }
      if f2 ~= '' then args[#args + 1] = 'sn'; args[#args + 1] = f2 end
      if f3 ~= '' then args[#args + 1] = 's'; args[#args + 1] = f3 end
      finish(jk, id, KEYS[9], args, ls, log, false, cur[7])
      -- A dead letter keeps its record (no TTL) until it is retried or purged.
      redis.call('ZADD', kind == 'broken' and KEYS[12] or KEYS[11], now, id)
      notifyParent(kp, jk, id, 'failed', '{"s":"failed","e":' .. f1 .. '}', now, maxLen, parent, ttl)
      if cur[4] then redis.call('DEL', kp .. 'inbox:' .. id) end
      flushCheckpoints()
      emit(KEYS[5], maxLen, now, id, 'failed', 'failed')
    elseif kind == 'cancelled' then
      local args = { 'st', 'cancelled' }
      if f2 ~= '' then args[#args + 1] = 'sn'; args[#args + 1] = f2 end
      if f3 ~= '' then args[#args + 1] = 's'; args[#args + 1] = f3 end
      finish(jk, id, KEYS[10], args, ls, log, false, cur[7])
      notifyParent(kp, jk, id, 'cancelled', '{"s":"cancelled"}', now, maxLen, parent, ttl)
      if cur[6] then expireFans(kp, jk, id, ttl, cur[6]) end
      if cur[4] then redis.call('DEL', kp .. 'inbox:' .. id) end
      flushCheckpoints()
      emit(KEYS[5], maxLen, now, id, 'cancelled', 'cancelled')
    elseif kind == 'retry' then
      local runAt = now + tonumber(f2)
      local args = { 'st', 'queued', 'ua', now, 'e', f1, 'a', f3, 'ra', runAt, 'tk', '' }
      if f4 ~= '' then args[#args + 1] = 'sn'; args[#args + 1] = f4 end
      addLog(args, jk, ls, now, log)
      redis.call('HSET', jk, unpack(args))
      redis.call('ZADD', KEYS[2], runAt, id)
      activeRem[#activeRem + 1] = id
      flushCheckpoints()
      emit(KEYS[5], maxLen, now, id, 'retry', 'queued')
    elseif kind == 'requeue' then
      -- Back to its old place in line: a shutdown must not push a job behind newer ones.
      local args = { 'st', 'queued', 'ua', now, 'tk', '' }
      addLog(args, jk, ls, now, log)
      redis.call('HSET', jk, unpack(args))
      redis.call('ZADD', KEYS[1], cur[3], id)
      redis.call('ZADD', KEYS[6], 0, 'w')
      activeRem[#activeRem + 1] = id
      flushCheckpoints()
      emit(KEYS[5], maxLen, now, id, 'requeued', 'queued')
    elseif kind == 'park' then
      local args = { 'st', 'waiting', 'ua', now, 'sn', f2, 'tk', '' }
      if f3 ~= '' then args[#args + 1] = 's'; args[#args + 1] = f3 end
      if f1 ~= '' then
        args[#args + 1] = 'ra'; args[#args + 1] = f1
        redis.call('ZADD', KEYS[2], tonumber(f1), id)
      end
      local consumed = tonumber(f5) or 0
      if f5 ~= '' then args[#args + 1] = 'io'; args[#args + 1] = f5 end
      addLog(args, jk, ls, now, log)
      redis.call('HSET', jk, unpack(args))
      redis.call('ZADD', KEYS[7], now, id)
      activeRem[#activeRem + 1] = id
      -- An event may have arrived after the worker last read the inbox: wake it now.
      local fw = redis.call('HGET', jk, 'fw')
      if fw then redis.call('HDEL', jk, 'fw') end
      if fw or redis.call('LLEN', kp .. 'inbox:' .. id) > consumed then
        redis.call('ZADD', KEYS[2], 0, id)
      end
      flushCheckpoints()
      emit(KEYS[5], maxLen, now, id, 'waiting', 'waiting')
    end
  end
end
if #activeRem > 0 then redis.call('ZREM', KEYS[3], unpack(activeRem)) end
for s = 1, #doneIndex, 4000 do
  redis.call('ZADD', KEYS[8], unpack(doneIndex, s, math.min(s + 3999, #doneIndex)))
end
flushCheckpoints()
emitMany(KEYS[5], maxLen, now, doneIds, 'done', 'done')

-- Claim.
local claimed = {}
local nextDue = false
if want > 0 then
  promoteDue(kp, now, KEYS[1], KEYS[2], KEYS[4], KEYS[7])
  local popped = redis.call('ZPOPMIN', KEYS[1], want)
  local n = #popped / 2
  if n > 0 then
    local tok = redis.call('HINCRBY', KEYS[4], 'tok', n) - n
    local deadline = now + leaseMs
    local za = {}
    local claimedIds = { working = {}, loading = {} }
    for i = 1, n do
      local id = popped[i * 2 - 1]
      local jk = kp .. 'job:' .. id
      local r = redis.call('HMGET', jk, 'm', 'v', 'in', 'sn', 'a', 'ma', 'lr', 'par', 'opt', 'ls', 'io', 'pq', 'ib', 'ct')
      if not r[1] then
        -- No record (or one without a machine): nothing to run. Set it aside with the reason.
        redis.call('ZADD', KEYS[12], now, id)
        redis.call('HSET', kp .. 'brokenwhy', id, 'job record missing or has no machine')
        emit(KEYS[5], maxLen, now, id, 'broken', 'failed')
      else
        local token = workerId .. ':' .. (tok + i)
        local st = 'working'
        if hasLoadSet and not r[4] and string.find(loadSet, '|' .. r[1] .. '|', 1, true) then st = 'loading' end
        -- Short on purpose (the hash stays a compact listpack): no worker field (the token
        -- names it), `ct` is the claim time (and the update time, see decodeJob), and the first
        -- claim of a job whose log is still implicit logs nothing (see addLog in common.lua).
        local args = { 'st', st, 'tk', token, 'ct', now }
        local a = tonumber(r[5]) or 1
        if r[10] or r[14] or a > 1 then
          addLog(args, jk, r[10], now, { a > 1 and ('{"type":"claimed","attempt":' .. a .. '}') or '{"type":"claimed"}' })
        end
        redis.call('HSET', jk, unpack(args))
        za[#za + 1] = deadline; za[#za + 1] = id
        local ids = claimedIds[st]
        ids[#ids + 1] = id
        local n0 = #claimed
        claimed[n0 + 1] = id
        claimed[n0 + 2] = token
        claimed[n0 + 3] = r[1]
        claimed[n0 + 4] = r[2] or ''
        claimed[n0 + 5] = r[3] or ''
        claimed[n0 + 6] = r[6] or ''
        claimed[n0 + 7] = st
        -- The fields most jobs do not have, as one nested reply, or '' when none is set.
        if r[4] or r[5] or r[7] or r[8] or r[9] or r[11] or r[12] or r[13] then
          -- A child whose parent is on this queue (same slot): whether the parent is live, so
          -- the worker need not ask before running it ('' = not checked here).
          local parentState = ''
          if r[8] and (not r[12] or r[12] == '') then
            local p = redis.call('HMGET', kp .. 'job:' .. r[8], 'st', 'cx')
            if not p[1] then parentState = 'missing'
            elseif p[1] == 'cancelled' or p[2] == '1' then parentState = 'cancelled'
            else parentState = 'live' end
          end
          claimed[n0 + 8] = { r[4] or '', r[5] or '', r[7] or '', r[8] or '', r[9] or '', r[11] or '0', r[12] or '', r[13] or '', parentState }
        else
          claimed[n0 + 8] = ''
        end
      end
    end
    if #za > 0 then redis.call('ZADD', KEYS[3], unpack(za)) end
    emitMany(KEYS[5], maxLen, now, claimedIds.loading, 'claimed', 'loading')
    emitMany(KEYS[5], maxLen, now, claimedIds.working, 'claimed', 'working')
  end
  if n == want then
    -- There may be more: let another idle supervisor wake and take some.
    if redis.call('ZCARD', KEYS[1]) > 0 then redis.call('ZADD', KEYS[6], 0, 'w') end
  else
    local first = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
    if first[2] then nextDue = first[2] end
  end
end
return { written, claimed, nextDue, now }
