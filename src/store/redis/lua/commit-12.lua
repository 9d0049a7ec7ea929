--[[ commit: a worker's fenced writes, then a claim of new work: one round trip.
KEYS: 1 queued, 2 delayed, 3 active, 4 meta, 5 events, 6 marker, 7 waiting, 8 done, 9 failed,
      10 cancelled, 11 dead, 12 broken (the lifecycle derives the same keys from the prefix)
ARGV: 1 key prefix, 2 events max length, 3 retention ms (TTL of a finished parent's fan-out
      keys; records themselves are deleted by sweep-5.lua), 4 worker id, 5 lease ms,
      6 how many jobs to claim, 7 machines with a load phase as "|a|b|",
      8 the ops: ONE JSON array of named op records (encodeOps.ts), under CommitOp's own names
      (src/store/commitTypes.ts): kind, id, token, then what the kind carries, each left out
      when not set. COMMIT_OP_FIELDS lists them per kind and COMMIT_OP_TYPES what each holds
      (text, count, entries), both generated from src/store/redis/commitOpFields.ts:
  checkpoint: status (loading|working), snapshot, state, progress, inboxConsumed (in all)
  done: output, snapshot ('' or absent: derived from st/a/ma), state
  fail: error, snapshot, state, resume (the snapshot a redrive resumes from)
  retry: error, delayMs, attempt (the next), snapshot, retryLaters (so far; absent: kept)
  cancelled: snapshot, state         requeue: -         broken: error
  park: wakeAt (ms; absent: none), snapshot, state, inboxConsumed (in all)
  every kind but requeue and broken: version (the machine version of its snapshot, when not
      the record's, after a migrate: the record's `v` becomes it in the same write)
  every kind: log (its entries, JSON texts). A done without `log` is the plain done (its log the
      one {"type":"done"} entry), the op most jobs end with: { kind, id, token, output }.
Returns { written (1|0 per op), claimed, next due ms|false, Redis time ms }; claimed holds 8
values per job: id, token, machine, version, input, max attempts, status, then '' or a nested
array { snapshot, attempt, lease requeues, parent id, options, inbox position, parent queue,
has inbox, parent state ('live' for a child whose parent is on this queue: one that is not is
ended cancelled here, not claimed), retry-laters } (each '' when absent; most jobs have none of
them).
Errors: BAD_COMMIT <op index> <why> when an argument is malformed: index 0 for the call (ops that
are not a JSON array), else the op's, from 1 (not a record, an unknown kind, a field that is not
what COMMIT_OP_TYPES says, a value out of range); nothing is written then.

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
-- The keys this script names (the lifecycle derives the others from the prefix, ARGV[1]).
local queuedKey, delayedKey, metaKey, markerKey = KEYS[1], KEYS[2], KEYS[4], KEYS[6]
LC.kp, LC.maxLen, LC.ttl = ARGV[1], ARGV[2], tonumber(ARGV[3])
local workerId, leaseMs, want, loadSet = ARGV[4], tonumber(ARGV[5]), tonumber(ARGV[6]), ARGV[7]
local hasLoadSet = loadSet ~= '||' and loadSet ~= ''

-- NO HALF-APPLIED CALL: Lua does not roll back, so every argument is checked before the first
-- write, and a malformed call writes nothing.
local function bad(i, why) return redis.error_reply('BAD_COMMIT ' .. i .. ' ' .. why) end
if not LC.ttl or not want or want < 0 or want % 1 ~= 0 then
  return bad(0, 'bad retention or claim count')
end
if want > 0 and (not leaseMs or leaseMs <= 0) then return bad(0, 'bad lease ms') end
if #ARGV ~= 8 then return bad(0, 'argument count') end
local decoded, ops = pcall(cjson.decode, ARGV[8])
if not decoded or type(ops) ~= 'table' or (#ops == 0 and next(ops) ~= nil) then
  return bad(0, 'ops are not a JSON array')
end
local nOps = #ops
local function isCount(v) return type(v) == 'number' and v >= 0 and v % 1 == 0 end
-- The text field each kind cannot do without.
local NEEDS = { done = 'output', fail = 'error', retry = 'error', broken = 'error' }
-- Whether op i is the plain done (no log, snapshot, state or version): lcDonePlain's.
local plain = {}
-- Why op i cannot be read, or nil. The checks with a name of their own come first.
local function unreadable(op)
  if type(op) ~= 'table' then return 'not an op record' end
  local kind = op.kind
  if type(op.id) ~= 'string' or op.id == '' or type(op.token) ~= 'string' then return 'missing values' end
  local fields = COMMIT_OP_FIELDS[kind]
  if not fields then return 'unknown kind ' .. tostring(kind) end
  if op.version ~= nil and (not isCount(op.version) or op.version < 1 or kind == 'requeue' or kind == 'broken') then
    return 'version'
  end
  if kind == 'checkpoint' then
    if op.status ~= 'loading' and op.status ~= 'working' then return 'checkpoint status' end
    if op.inboxConsumed ~= nil and not isCount(op.inboxConsumed) then return 'inbox position' end
  elseif kind == 'retry' then
    if not isCount(op.delayMs) then return 'retry delay' end
    if not isCount(op.attempt) or op.attempt < 1 then return 'retry attempt' end
    if op.retryLaters ~= nil and not isCount(op.retryLaters) then return 'retry-later count' end
  elseif kind == 'park' then
    if op.wakeAt ~= nil and not isCount(op.wakeAt) then return 'wake time' end
    if op.inboxConsumed ~= nil and not isCount(op.inboxConsumed) then return 'inbox position' end
    if op.snapshot == nil or op.snapshot == '' then return 'park without snapshot' end
  end
  local need = NEEDS[kind]
  if need and type(op[need]) ~= 'string' then return need .. ' is not text' end
  if op.log == nil and kind ~= 'done' then return 'log missing' end
  for _, f in ipairs(fields) do
    local v, t = op[f], COMMIT_OP_TYPES[f]
    if v ~= nil then
      if t == 'text' then
        if type(v) ~= 'string' then return f .. ' is not text' end
      elseif t == 'count' then
        if not isCount(v) then return f .. ' is not a count' end
      else
        if type(v) ~= 'table' then return f .. ' is not a list of entries' end
        for _, e in ipairs(v) do
          if type(e) ~= 'string' then return f .. ' holds an entry that is not text' end
        end
      end
    end
  end
  return nil
end
for i = 1, nOps do
  local op = ops[i]
  -- The plain done, checked in full here (it skips the lists), as most ops are.
  if type(op) == 'table' and op.kind == 'done' and op.log == nil and op.snapshot == nil and op.state == nil
      and op.version == nil and type(op.id) == 'string' and op.id ~= '' and type(op.token) == 'string'
      and type(op.output) == 'string' then
    plain[i] = true
  else
    local why = unreadable(op)
    if why then return bad(i, why) end
  end
end

LC.now = nowMs()
local now = LC.now
local written = {}
local TARGET = { done = 'done', fail = 'failed', broken = 'failed', retry = 'queued', cancelled = 'cancelled',
  requeue = 'queued', park = 'waiting' }
-- Ops whose move needs the full read (place in line, lease requeues): see lcRead.
local FULL = { checkpoint = true, retry = true, requeue = true, park = true }
local DONE_LOG = { '{"type":"done"}' }

-- Adds field/value to `set` when the value is not ''.
local function put(set, field, value)
  if value ~= '' and value ~= nil then set[#set + 1] = field; set[#set + 1] = value end
end

for i = 1, nOps do
  local op = ops[i]
  if plain[i] then
    written[i] = lcDonePlain(op.id, op.token, op.output)
  else
  local kind, log = op.kind, op.log or DONE_LOG
  local to = TARGET[kind] or op.status
  local j = lcRead(op.id, FULL[kind])
  if lcGuard(j, to, op.token) then
    written[i] = 0
  else
    written[i] = 1
    -- The record's version follows its snapshot's (a migrate), in the same write.
    local set = op.version and { 'v', op.version } or {}
    if kind == 'checkpoint' then
      put(set, 'sn', op.snapshot); put(set, 's', op.state); put(set, 'p', op.progress)
      put(set, 'io', op.inboxConsumed)
      lcMove(j, to, { kind = 'checkpoint', log = log, set = set })
    elseif kind == 'done' then
      put(set, 'o', op.output)
      put(set, 's', op.state)
      -- No snapshot sent: decodeJob derives it from st/a/ma.
      put(set, 'sn', op.snapshot)
      -- Log still implicit and this is its plain "done": it stays implicit (stamp `fa`).
      local implicit = not j.ls and #log == 1 and log[1] == '{"type":"done"}'
      lcMove(j, 'done', { kind = 'done', log = log, implicit = implicit, output = op.output }, set)
    elseif kind == 'fail' or kind == 'broken' then
      put(set, 'e', op.error)
      put(set, 'sn', op.snapshot); put(set, 's', op.state); put(set, 'rs', op.resume)
      local why = nil
      if kind == 'broken' then
        local ok, e = pcall(cjson.decode, op.error)
        why = ok and type(e) == 'table' and e.message or op.error
      end
      lcMove(j, 'failed', { kind = 'failed', log = log, set = set,
        dead = kind == 'broken' and 'broken' or nil, why = why, error = op.error })
    elseif kind == 'cancelled' then
      put(set, 'sn', op.snapshot); put(set, 's', op.state)
      lcMove(j, 'cancelled', { kind = 'cancelled', log = log, set = set })
    elseif kind == 'retry' then
      put(set, 'e', op.error); put(set, 'a', op.attempt)
      put(set, 'sn', op.snapshot); put(set, 'rl', op.retryLaters)
      -- Even with no delay a retry goes behind the jobs waiting in its band (fresh place).
      lcMove(j, 'queued', { kind = 'retry', log = log, set = set, runAt = now + op.delayMs,
        fresh = true, cancelLog = '{"type":"cancelled","reason":"cancel requested; not retried"}' })
    elseif kind == 'requeue' then
      -- Back to its old place in line: a shutdown must not push a job behind newer ones.
      lcMove(j, 'queued', { kind = 'requeued', log = log, set = set,
        cancelLog = '{"type":"cancelled","reason":"cancel requested; not requeued"}' })
    elseif kind == 'park' then
      put(set, 'sn', op.snapshot)
      put(set, 's', op.state); put(set, 'io', op.inboxConsumed)
      lcMove(j, 'waiting', { kind = 'waiting', log = log, set = set,
        runAt = op.wakeAt, consumed = op.inboxConsumed or 0,
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
