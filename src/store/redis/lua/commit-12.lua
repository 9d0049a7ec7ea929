--[[ commit: a worker's fenced writes, then a claim of new work: one round trip.
KEYS: 1 queued, 2 delayed, 3 active, 4 meta, 5 events, 6 marker, 7 waiting, 8 done, 9 failed,
      10 cancelled, 11 dead, 12 broken (the lifecycle derives the same keys from the prefix)
ARGV: 1 key prefix, 2 events max length, 3 retention ms (TTL of a finished parent's fan-out
      keys; records themselves are deleted by sweep-5.lua), 4 worker id, 5 lease ms,
      6 how many jobs to claim, 7 machines with a load phase as "|a|b|",
      8 the lead (ms) and 9 how many jobs the claim may HOLD (THE EARLY LEASE,
      include/lcClaimEarly.lua: parked jobs due within the lead, claimed before they are due, at
      most that many; either 0: none), 10 the largest input a claim sends (bytes; 0: no
      limit; WITHHELD INPUT below), 11 on: the ops, as flat values by name (encodeOps.ts; read and checked by
      include/readCommitOps.lua): per op its kind, id, token, then one value per field of
      COMMIT_OP_FIELDS[kind] in that table's order ('' when not set), the log last as a count then
      its entries; the Lua rebuilds each op under CommitOp's own names (src/store/commitTypes.ts).
      COMMIT_OP_FIELDS and COMMIT_OP_TYPES (text, count, entries) are generated from
      src/store/redis/commitOpFields.ts. Per kind:
  checkpoint: status (loading|working), snapshot, state, progress, inboxConsumed (in all)
  done: output, snapshot ('': derived from st/a/ma), state
  fail: error, snapshot, state, resume (the snapshot a redrive resumes from)
  retry: error, delayMs, attempt (the next), snapshot, retryLaters (so far; '': kept), holdMs (a
      rate limit hit, RateLimitedError: the queue's starts are held this long; see THE HOLD)
  cancelled: snapshot, state         requeue: -         broken: error
  park: wakeAt (ms; '': none), snapshot, state, inboxConsumed (in all)
  every kind but requeue and broken: version (the machine version of its snapshot, when not
      the record's, after a migrate: the record's `v` becomes it in the same write)
  every kind: log (its entries, JSON texts).
  The plain done, the op most jobs end with (a done with no snapshot, state or version, its log
      the one {"type":"done"} entry), travels as 4 values: COMMIT_PLAIN_DONE, id, token, output.
  A checkpoint or another done with no version travels in its compact form (COMMIT_COMPACT: its
      letter, id, token, its own values, then its shared values or the number of a set of them
      an op before it sent), applied by include/lcCompactOp.lua; ops of one letter next to each
      other that share their set, as a run (COMMIT_COMPACT_RUN: the letter, their count, the
      set, then per op its id, token and own values).
  Why not JSON (bench/probes/commitOps.ts, instructions under callgrind): its cjson.decode and
      checks made a claim + plain done cost Redis 4% more per job (189k against 182k for these
      values, as for the former positional f1..f5) and a fenced-off plain done 21% more.
Returns { written, claimed, next due ms|false, Redis time ms, held }; held: how many of the
jobs claimed (the reply's last ones) were claimed early (THE EARLY LEASE); written is the number of ops
when every op was written (most calls), else 1|0 per op; claimed is THE PACKED REPLY, one text
(binary: the worker reads it as bytes, commitOps.ts's decodeClaimed), per job claimed: its id,
token and input, each as its length in bytes then its bytes (the length: one byte below 128,
else 7 bits a byte, the lowest first, the high bit set on all bytes but the last;
include/lcClaimJobs.lua's packLen), then THE COMPACT REPLY: a count of texts, one byte, and as
many texts, each as its length then its bytes. The count is 0 for a job whose machine, version,
max attempts and status are those of the last job before it that carried them and that has
none of the rare fields (most jobs of a claim); else 4: machine, version, max attempts, status;
or, for a job with any rare field, 14: machine, version, max attempts, status, snapshot,
attempt, lease requeues, parent id, options, inbox position, parent queue, has inbox, parent
state ('live' for a child whose parent is on this queue: one that is not is ended cancelled
here, not claimed), retry-laters (each '' when absent; an absent version or max attempts is the
default: THE DEFAULTS LEFT OUT, include/lcCreate.lua); or 15: those 14, then the size of its
input in bytes, for a job whose input was withheld. WITHHELD INPUT: an input over ARGV 10's
bytes is not sent (its text is empty): no worker runs it (it sets the job aside, knowing its size
from the 15th text), and a reply that carried it could take longer than a lease to arrive, every
claim of it handed back as stale and claimed again without end (src/supervisor/CommitPump.ts). Lengths, not separators: an id, input
or snapshot may hold any byte. Every value of a reply costs Redis a conversion from Lua and an
element written (~1.2k instructions under callgrind), and the worker a Buffer made and decoded:
one for the claim, where 3 a job were (4 and 1 per op before that).
Errors: BAD_COMMIT <op index> <why> when an argument is malformed: index 0 for the call, else the
op's, from 1 (an unknown kind, values missing, a count that is not one, a value out of range);
nothing is written then.

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
--- @include "lcCompactOp"
--- @include "lcKeyGate"
--- @include "lcBatch"
--- @include "readCommitOps"
--- @include "lcClaimJobs"
-- The claim (include/lcClaimJobs.lua) reads the keys it names from KEYS; the lifecycle derives
-- the others from the prefix, ARGV[1].
LC.kp, LC.maxLen, LC.ttl = ARGV[1], ARGV[2], tonumber(ARGV[3])
local workerId, leaseMs, want, loadSet = ARGV[4], tonumber(ARGV[5]), tonumber(ARGV[6]), ARGV[7]
local lead, hold = tonumber(ARGV[8]), tonumber(ARGV[9])
-- WITHHELD INPUT (the header): in LC, not a local of the main chunk (at most 200, Lua 5.1).
LC.maxIn = tonumber(ARGV[10])

-- NO HALF-APPLIED CALL: Lua does not roll back, so every argument is checked before the first
-- write, and a malformed call writes nothing.
local function bad(i, why) return redis.error_reply('BAD_COMMIT ' .. i .. ' ' .. why) end
if not LC.ttl or not want or want < 0 or want % 1 ~= 0 then
  return bad(0, 'bad retention or claim count')
end
if not lead or lead < 0 or not hold or hold < 0 or hold % 1 ~= 0 then return bad(0, 'bad lead or hold count') end
if not LC.maxIn or LC.maxIn < 0 or LC.maxIn % 1 ~= 0 then return bad(0, 'bad input limit') end
if want > 0 and (not leaseMs or leaseMs <= 0) then return bad(0, 'bad lease ms') end
local ops, at, nOps = readCommitOps(11)
-- A malformed op: nil, then its index and why.
if not ops then return bad(at, nOps) end

LC.now = nowMs()
local now = LC.now
-- THE FLOW GATE's settings, read once per call (before the ops: whether any job of the queue
-- has a concurrency key decides what the ops' reads take; see include/lcState.lua).
-- Read into a table, the settings only this setup uses: the main chunk of a script may hold
-- at most 200 locals (Lua 5.1), the includes' among them.
local paused, total, perKey, rate, per, burst, tat, strategy, rateMode, keyGate, mrated
do
  local f = redis.call('HMGET', LC.kp .. 'flow', 'paused', 'total', 'perKey', 'rate', 'ratePer', 'rateBurst', 'tat',
    'strategy', 'rateMode', 'keyGate', 'mrated', 'keyed', 'minimal', 'fairness', 'gated', 'krate', 'kratePer',
    'krateBurst', 'krateMode')
  paused, total, perKey, rate, per, burst, tat, strategy, rateMode, keyGate, mrated = unpack(f, 1, 11)
  LC.keyed = f[12] == '1'
  -- MINIMAL RECORDS (include/lcDoneMinimal.lua): no job's read takes `rm` on a queue that never
  -- had one.
  LC.minimal = f[13] == '1'
  -- THE ROUND ROBIN between keys (include/lcFlow.lua): known from this read, so no job pays for
  -- it on a queue without it.
  LC.rr = f[14] == 'roundRobin'
  -- THE MACHINE GATES (include/lcGate.lua): known from this read, so lcLeave reads nothing more.
  LC.gated = f[15] == '1'
  -- THE KEY GATE (include/lcKeyGate.lua): looked at per job only while a key throttle, key hold
  -- or paused key exists.
  lcKeyGateInit(f[16], f[17], f[18], f[19])
end
LC.rrHeads = tonumber(perKey) or 1
-- THE SLOTS (ck:<key>) exist only while perKey is set (include/lcFlow.lua): none to free else.
LC.slots = perKey ~= nil and perKey ~= false
keyGate = keyGate == '1'
-- THE MACHINE THROTTLE (include/lcMachineRate.lua): looked at per job only while one exists.
mrated = mrated == '1'
local written = {}
-- The ops' own helpers live in this block: the main chunk holds at most 200 locals (Lua 5.1),
-- the includes' among them.
do
local TARGET = { done = 'done', fail = 'failed', broken = 'failed', retry = 'queued', cancelled = 'cancelled',
  requeue = 'queued', park = 'waiting' }
-- Ops whose move needs the full read (place in line, lease requeues): see lcRead. A checkpoint
-- reads only what a write keeping the job's status needs ('update'), in full when it would not
-- keep it (loading -> working).
local FULL = { checkpoint = 'update', retry = true, requeue = true, park = true }

-- Adds field/value to `set` when the value is not ''.
local function put(set, field, value)
  if value ~= '' and value ~= nil then set[#set + 1] = field; set[#set + 1] = value end
end
-- THE HOLD (a RateLimitedError from a job's work, docs/flow-control.md): no job of the queue
-- starts for holdMs from now. The throttle's state `tat` is pushed forward, in this same atomic
-- call, so that the GCRA allows the next start at now + holdMs and then only at its rate (no
-- burst at once after a hold: tat - tau = now + holdMs). A queue with no throttle keeps the hold
-- in the same field (T = tau = 0: no start before tat). Only ever forward: a shorter hold never
-- shortens a longer one. Clearing or setting the throttle (flow-3.lua) drops it.
local function holdStarts(holdMs)
  local tau0 = 0
  if rate then tau0 = (tonumber(burst) or 0) * tonumber(per) / tonumber(rate) end
  local untilT = now + holdMs + tau0
  if untilT > (tonumber(tat) or 0) then
    tat = untilT
    redis.call('HSET', LC.kp .. 'flow', 'tat', string.format('%.3f', tat))
  end
end

for i = 1, nOps do
  local p, op = at[i], ops[i]
  if p then
    if p < 0 then
      -- A plain done: its id and token where readCommitOps found them, its output at `op`.
      written[i] = lcDonePlain(ARGV[-p], ARGV[-p + 1], ARGV[op])
      op = nil
    else
      -- A compact op (`p`: where its id is, `op`: where its shared values are), or its record
      -- when the general path below must take it.
      written[i], op = lcCompactOp(p, op)
    end
  end
  if op then
  local kind, log = op.kind, op.log
  local to = TARGET[kind] or op.status
  local j = lcRead(op.id, FULL[kind])
  -- (A fenced-off one is not read again: lcGuard refuses it whatever its status.)
  if j.upd and j.st ~= to and j.tk == op.token and j.st then j = lcRead(op.id, true) end
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
      -- A job with a key holds back only its key (THE KEY HOLD); one without, the queue.
      if op.holdMs then
        if j.ck then lcHoldKey(j.ck, op.holdMs, now); keyGate = true else holdStarts(op.holdMs) end
      end
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
end
lcFlush()

-- Claim, through THE FLOW GATE (include/lcClaimJobs.lua, include/lcFlow.lua, docs/flow-control.md).
-- THE THROTTLE (a GCRA, `rate*` and `tat` in `flow`): one start per T = per / limit ms, with
-- `burst` more at once (tolerance tau = burst * T); so at most limit + burst start in any window of
-- `per` ms. A claim takes no more than the GCRA allows now, and when it held jobs back says when
-- the next is allowed (its next-due time), so the supervisor sleeps until then: a throttled job
-- stays queued, uses no worker slot and no attempt.
-- COST: one HMGET of `flow` per call (above); a queue that never had a job with a key costs
-- nothing per job (`keyed` unset: no job's read takes `ck`).
-- THE LATENESS CARRY's bound (ms): memory/commitOps.ts has the same.
local THROTTLE_CARRY_MS = 50

-- The claim's reply, in pieces (THE PACKED REPLY), and the number of jobs it started.
local claimed, started, held = {}, 0, 0
local nextDue = false
local T, tau, throttled = 0, 0, false
-- SKIP (a throttle of mode 'skip'): the jobs this claim would have started but for the rate are
-- ended cancelled, unrun, saying why, instead of waiting.
local skipN = 0
if want > 0 then
  perKey = tonumber(perKey)
  rate = tonumber(rate)
  if total then
    -- Room left under the total: the running jobs are exactly those in `active`.
    want = math.max(0, math.min(want, tonumber(total) - redis.call('ZCARD', KEYS[3])))
  end
  if not rate and tat and tonumber(tat) > now then
    -- THE HOLD on a queue with no throttle: nothing starts before tat.
    want = 0
    nextDue = math.ceil(tonumber(tat))
  end
  if rate and want > 0 and paused ~= '1' then
    T = tonumber(per) / rate
    tau = (tonumber(burst) or 0) * T
    -- THE LATENESS CARRY (burst 0): a start the GCRA allowed at tat that comes later (the
    -- supervisor's timer, the round trip) keeps its lateness, up to THROTTLE_CARRY_MS and one
    -- interval: tat may lag `now` by that much (burst 0 only: a burst absorbs lateness already).
    -- So a backlogged queue starts at its rate, not below it (each late start moved the next to
    -- now + T before). The price, stated in docs/flow-control.md: at most limit + 1 start in
    -- any window of `per` (2 at once after an idle time when T <= THROTTLE_CARRY_MS).
    local lag = 0
    if tau == 0 then lag = math.min(T, THROTTLE_CARRY_MS) end
    tat = math.max(tonumber(tat) or 0, now - lag)
    local allowed = 0
    if tat <= now + tau then allowed = math.floor((now + tau - tat) / T) + 1 end
    if allowed < want then
      if rateMode == 'skip' then skipN = want - allowed end
      want = allowed; throttled = true
    end
  end
end
if (want > 0 or skipN > 0) and paused ~= '1' then
  -- THE EARLY LEASE only where no count of the queue's running jobs (`total`) or of its starts
  -- (a throttle: its GCRA spends one interval a start) would count a held job, which does not run
  -- yet, as one that does.
  if total or rate then hold = 0 end
  nextDue, started, held = lcClaimJobs(want, skipN, throttled, nextDue, claimed, workerId, leaseMs, loadSet, perKey,
    strategy, keyGate, mrated, hold, lead)
end
if T > 0 then
  -- Each job started spends one emission interval of the GCRA.
  if started > 0 then
    tat = tat + started * T
    redis.call('HSET', LC.kp .. 'flow', 'tat', string.format('%.3f', tat))
  end
  if throttled then
    local at = math.ceil(tat - tau)
    if not nextDue or tonumber(nextDue) > at then nextDue = at end
  end
end
-- Every op written (most calls): their count, not a value per op (see the header).
do
  local all = true
  for i = 1, nOps do
    if written[i] ~= 1 then all = false; break end
  end
  if all then written = nOps end
end
return { written, table.concat(claimed), nextDue, now, held }
