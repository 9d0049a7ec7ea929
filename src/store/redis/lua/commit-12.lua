--[[ commit: a worker's fenced writes, then a claim of new work: one round trip.
KEYS: 1 queued, 2 delayed, 3 active, 4 meta, 5 events, 6 marker, 7 waiting, 8 done, 9 failed,
      10 cancelled, 11 dead, 12 broken (the lifecycle derives the same keys from the prefix)
ARGV: 1 key prefix, 2 events max length, 3 retention ms (TTL of a finished parent's fan-out
      keys; records themselves are deleted by sweep-5.lua), 4 worker id, 5 lease ms,
      6 how many jobs to claim, 7 machines with a load phase as "|a|b|", 8 op count,
      then per op: kind, id, token, f1, f2, f3, f4, f5, log entries joined by "\n" (9 values;
      kind@version, e.g. park@2, when the op's snapshot is of another version of the machine than
      the record's, after a migrate: the record's `v` becomes it in the same write),
      or, for the common plain done (no snapshot, no state, log exactly {"type":"done"}), the 4
      values 'D', id, token, output: fewer values to pass and to read (encodeOps.ts)
  checkpoint: f1 status (loading|working), f2 snapshot|'', f3 state|'', f4 progress|'',
              f5 inbox events consumed in all|''
  done: f1 output, f2 snapshot|'' (derived from st/a/ma), f3 state
  fail: f1 error, f2 snapshot, f3 state, f4 the snapshot a redrive resumes from|''
  retry: f1 error, f2 delay ms, f3 next attempt, f4 snapshot|'', f5 retry-laters so far|'' (kept)
  cancelled: f2 snapshot|'', f3 state|''         requeue: -
  park: f1 wake-at ms|'', f2 snapshot, f3 state, f5 inbox events consumed in all|''
  broken: f1 error
Returns { written (1|0 per op), claimed, next due ms|false, Redis time ms }; claimed holds 8
values per job: id, token, machine, version, input, max attempts, status, then '' or a nested
array { snapshot, attempt, lease requeues, parent id, options, inbox position, parent queue,
has inbox, parent state ('live' for a child whose parent is on this queue: one that is not is
ended cancelled here, not claimed), retry-laters } (each '' when absent; most jobs have none of
them).
Errors: BAD_COMMIT <op index> <why> when an argument is malformed; nothing is written then.

THE FENCE: an op is applied only when the job's lease token equals the op's token (lcGuard in
include/lcMove.lua). A worker whose lease passed (reaped, requeued, claimed by another) MUST
NOT change the job: its op is skipped and reported 0, and the worker drops the job.
]]
--- @include "nowMs"
--- @include "lcState"
--- @include "lcRead"
--- @include "lcGuard"
--- @include "lcMove"
--- @include "lcDonePlain"
--- @include "lcClaim"
--- @include "lcSetBroken"
--- @include "lcBatch"
--- @include "promoteDue"
--- @include "addLog"
--- @include "splitEntries"
-- The keys this script names (the lifecycle derives the others from the prefix, ARGV[1]).
local queuedKey, delayedKey, metaKey, markerKey = KEYS[1], KEYS[2], KEYS[4], KEYS[6]
LC.kp, LC.maxLen, LC.ttl = ARGV[1], ARGV[2], tonumber(ARGV[3])
local workerId, leaseMs, want, loadSet = ARGV[4], tonumber(ARGV[5]), tonumber(ARGV[6]), ARGV[7]
local nOps = tonumber(ARGV[8])
local hasLoadSet = loadSet ~= '||' and loadSet ~= ''

-- NO HALF-APPLIED CALL: Lua does not roll back, so every argument is checked before the first
-- write, and a malformed call writes nothing.
local function bad(i, why) return redis.error_reply('BAD_COMMIT ' .. i .. ' ' .. why) end
if not LC.ttl or not want or want < 0 or want % 1 ~= 0 or not nOps or nOps < 0 or nOps % 1 ~= 0 then
  return bad(0, 'bad retention, claim count or op count')
end
if want > 0 and (not leaseMs or leaseMs <= 0) then return bad(0, 'bad lease ms') end
local function isCount(v) local n = tonumber(v); return n ~= nil and n >= 0 and n % 1 == 0 end
local KINDS = { checkpoint = true, done = true, fail = true, retry = true, cancelled = true,
  requeue = true, park = true, broken = true }
local b = 9
for i = 1, nOps do
  if ARGV[b] == 'D' then
    if not ARGV[b + 3] or ARGV[b + 1] == '' then return bad(i, 'missing values') end
    b = b + 4
  else
    local kind, f1, f2, f5 = ARGV[b], ARGV[b + 3], ARGV[b + 4], ARGV[b + 7]
    if not ARGV[b + 8] or ARGV[b + 1] == '' then return bad(i, 'missing values') end
    local k, v = string.match(kind, '^(%a+)@(%d+)$')
    if k then
      kind = k
      if tonumber(v) < 1 or kind == 'requeue' or kind == 'broken' then return bad(i, 'version') end
    end
    if not KINDS[kind] then return bad(i, 'unknown kind ' .. tostring(kind)) end
    if kind == 'checkpoint' then
      if f1 ~= 'loading' and f1 ~= 'working' then return bad(i, 'checkpoint status') end
      if f5 ~= '' and not isCount(f5) then return bad(i, 'inbox position') end
    elseif kind == 'retry' then
      if not isCount(f2) then return bad(i, 'retry delay') end
      if not isCount(ARGV[b + 5]) or tonumber(ARGV[b + 5]) < 1 then return bad(i, 'retry attempt') end
      if f5 ~= '' and not isCount(f5) then return bad(i, 'retry-later count') end
    elseif kind == 'park' then
      if f1 ~= '' and not isCount(f1) then return bad(i, 'wake time') end
      if f5 ~= '' and not isCount(f5) then return bad(i, 'inbox position') end
      if f2 == '' then return bad(i, 'park without snapshot') end
    end
    b = b + 9
  end
end
if b ~= #ARGV + 1 then return bad(0, 'argument count') end

LC.now = nowMs()
local now = LC.now
local written = {}
local TARGET = { done = 'done', fail = 'failed', broken = 'failed', retry = 'queued', cancelled = 'cancelled',
  requeue = 'queued', park = 'waiting' }
-- Ops whose move needs the full read (place in line, lease requeues): see lcRead.
local FULL = { checkpoint = true, retry = true, requeue = true, park = true }

-- Adds field/value to `set` when the value is not ''.
local function put(set, field, value)
  if value ~= '' and value ~= nil then set[#set + 1] = field; set[#set + 1] = value end
end

b = 9
for i = 1, nOps do
  local kind, id, token, f1, f2, f3, f4, f5, log
  if ARGV[b] == 'D' then
    written[i] = lcDonePlain(ARGV[b + 1], ARGV[b + 2], ARGV[b + 3])
    b = b + 4
  else
    kind, id, token = ARGV[b], ARGV[b + 1], ARGV[b + 2]
    f1, f2, f3, f4, f5 = ARGV[b + 3], ARGV[b + 4], ARGV[b + 5], ARGV[b + 6], ARGV[b + 7]
    log = splitEntries(ARGV[b + 8])
    b = b + 9
  end
  if kind then
  local version = nil
  if kind then
    local k, v = string.match(kind, '^(%a+)@(%d+)$')
    if k then kind, version = k, v end
  end
  local to = TARGET[kind] or f1
  local j = lcRead(id, FULL[kind])
  if lcGuard(j, to, token) then
    written[i] = 0
  else
    written[i] = 1
    -- The record's version follows its snapshot's (a migrate), in the same write.
    local set = version and { 'v', version } or {}
    if kind == 'checkpoint' then
      put(set, 'sn', f2); put(set, 's', f3); put(set, 'p', f4); put(set, 'io', f5)
      lcMove(j, to, { kind = 'checkpoint', log = log, set = set })
    elseif kind == 'done' then
      put(set, 'o', f1)
      put(set, 's', f3)
      -- No snapshot sent: decodeJob derives it from st/a/ma.
      put(set, 'sn', f2)
      -- Log still implicit and this is its plain "done": it stays implicit (stamp `fa`).
      local implicit = not j.ls and #log == 1 and log[1] == '{"type":"done"}'
      lcMove(j, 'done', { kind = 'done', log = log, implicit = implicit, output = f1 }, set)
    elseif kind == 'fail' or kind == 'broken' then
      put(set, 'e', f1)
      put(set, 'sn', f2); put(set, 's', f3); put(set, 'rs', f4)
      local why = nil
      if kind == 'broken' then
        local ok, e = pcall(cjson.decode, f1)
        why = ok and type(e) == 'table' and e.message or f1
      end
      lcMove(j, 'failed', { kind = 'failed', log = log, set = set,
        dead = kind == 'broken' and 'broken' or nil, why = why, error = f1 })
    elseif kind == 'cancelled' then
      put(set, 'sn', f2); put(set, 's', f3)
      lcMove(j, 'cancelled', { kind = 'cancelled', log = log, set = set })
    elseif kind == 'retry' then
      put(set, 'e', f1); put(set, 'a', f3)
      put(set, 'sn', f4); put(set, 'rl', f5)
      -- Even with no delay a retry goes behind the jobs waiting in its band (fresh place).
      lcMove(j, 'queued', { kind = 'retry', log = log, set = set, runAt = now + tonumber(f2),
        fresh = true, cancelLog = '{"type":"cancelled","reason":"cancel requested; not retried"}' })
    elseif kind == 'requeue' then
      -- Back to its old place in line: a shutdown must not push a job behind newer ones.
      lcMove(j, 'queued', { kind = 'requeued', log = log, set = set,
        cancelLog = '{"type":"cancelled","reason":"cancel requested; not requeued"}' })
    elseif kind == 'park' then
      put(set, 'sn', f2)
      put(set, 's', f3); put(set, 'io', f5)
      lcMove(j, 'waiting', { kind = 'waiting', log = log, set = set,
        runAt = f1 ~= '' and tonumber(f1) or nil, consumed = tonumber(f5) or 0,
        cancelLog = '{"type":"cancelled","reason":"cancel requested; not parked"}' })
    end
  end
  end
end
lcFlush()

-- Claim.
local claimed = {}
local nextDue = false
if want > 0 then
  promoteDue()
  local popped = redis.call('ZPOPMIN', queuedKey, want)
  local n = #popped / 2
  if n > 0 then
    local tok = redis.call('HINCRBY', metaKey, 'tok', n) - n
    local deadline = now + leaseMs
    for i = 1, n do
      local id = popped[i * 2 - 1]
      local jk = LC.kp .. 'job:' .. id
      -- No `st` or `cx` read: `queued` holds only queued jobs, and none has `cx` (every move
      -- into `queued` passes the CANCEL GUARD, and cancel-8 ends a job that is not running at
      -- once), so the claim's guards hold by construction.
      local m, v, input, sn, attempt, ma, lr, par, opt, ls, io, pq, ib, ct, rl = unpack(redis.call('HMGET', jk,
        'm', 'v', 'in', 'sn', 'a', 'ma', 'lr', 'par', 'opt', 'ls', 'io', 'pq', 'ib', 'ct', 'rl'))
      -- A child whose parent is on this queue (same slot): a parent that is gone, finished or
      -- being cancelled ends it cancelled here, unrun.
      local parentGone = nil
      if par and (not pq or pq == '') then
        local pst, pcx = unpack(redis.call('HMGET', LC.kp .. 'job:' .. par, 'st', 'cx'))
        if not pst then parentGone = 'missing'
        elseif pcx == '1' then parentGone = 'cancelled'
        elseif FINAL[pst] then parentGone = pst end
      end
      if not m then
        -- No record (or one without a machine): nothing to run. Set it aside with the reason.
        lcSetBroken(id, 'job record missing or has no machine')
      elseif parentGone then
        local j = lcRead(id)
        j.popped = true
        local reason = 'parent ' .. parentGone
        lcMove(j, 'cancelled', { kind = 'cancelled',
          log = { '{"type":"cancelled","reason":' .. cjson.encode(reason) .. '}' } })
      else
        local token = workerId .. ':' .. (tok + i)
        local st = 'working'
        if hasLoadSet and not sn and string.find(loadSet, '|' .. m .. '|', 1, true) then st = 'loading' end
        -- Short on purpose (the hash stays a compact listpack): no worker field (the token
        -- names it), `ct` is the claim time (and the update time, see decodeJob), and the first
        -- claim of a job whose log is still implicit logs nothing (see include/addLog.lua).
        local entry = nil
        local a = attempt and tonumber(attempt) or 1
        if ls or ct or a > 1 then
          entry = a > 1 and ('{"type":"claimed","attempt":' .. a .. '}') or '{"type":"claimed"}'
        end
        lcClaim(id, jk, st, token, deadline, ls, entry)
        local n0 = #claimed
        claimed[n0 + 1] = id
        claimed[n0 + 2] = token
        claimed[n0 + 3] = m
        claimed[n0 + 4] = v or ''
        claimed[n0 + 5] = input or ''
        claimed[n0 + 6] = ma or ''
        claimed[n0 + 7] = st
        -- The fields most jobs do not have, as one nested reply, or '' when none is set.
        if sn or attempt or lr or par or opt or io or pq or ib or rl then
          local parentState = ''
          if par and (not pq or pq == '') then parentState = 'live' end
          claimed[n0 + 8] = { sn or '', attempt or '', lr or '', par or '', opt or '', io or '0', pq or '', ib or '',
            parentState, rl or '' }
        else
          claimed[n0 + 8] = ''
        end
      end
    end
  end
  lcFlush()
  if n == want then
    -- There may be more: let another idle supervisor wake and take some.
    if redis.call('ZCARD', queuedKey) > 0 then redis.call('ZADD', markerKey, 0, 'w') end
  else
    local first = redis.call('ZRANGE', delayedKey, 0, 0, 'WITHSCORES')
    if first[2] then nextDue = first[2] end
  end
end
return { written, claimed, nextDue, now }
