--- @include "lcState"
--- @include "lcBatch"
--- @include "lcFlow"
--- @include "lcGate"
--- @include "lcTally"
--- @include "lcMove"
--- @include "addLog"
--- @include "numText"
--- @include "redisCall"
-- THE COMPACT CHECKPOINT AND DONE: lcMove's checkpoint (a write that keeps a running job's
-- status) and its done, for the job most pipelines are: running, its status the checkpoint's, no
-- parent, fan-out, inbox, watcher or minimal record, on a queue without machine gates. The same writes as lcRead + lcGuard + lcMove make, without a record of
-- the op, of the job or of the move, the job read once. Anything else goes the general way.
-- test/lifecycle/compactOps.test.ts runs both on the same jobs and compares what they leave.
-- The op whose id is at ARGV[b] (its token and own values next, alone or in a run), its shared
-- values at ARGV[t] (their letter: LC.compactAt[t]), as readCommitOps checked them
-- (COMMIT_COMPACT, commitOpFields.ts):
--   C: id, token, snapshot ...   t: status, state, progress, inboxConsumed, log count, entries
--   S: id, token, output ...     t: snapshot, state, log count, entries
-- Returns 1 when written, 0 when refused (THE FENCE, or no such job); or nil and the op as a
-- record, for the general path (commit-12.lua: lcRead, lcGuard, lcMove).
-- Per call (LC.memo): the numbers of the texts it read (the log's count, `ls`, `io`) and the field
-- names and texts of the log positions it wrote, made once: the jobs of a batch share them, and a
-- number made text costs a sprintf (~2k instructions) where a table read costs ~0.1k.
-- THE SHARED TAIL: what an op's HSET writes after its own value (a checkpoint's snapshot, a
-- done's output) depends only on its set of shared values, the call's time and, for its log, the
-- position the job's log is at: the ops of a run (a batch of pipelines at the same step) share it
-- all. So that list is made once per set and log position (LC.memo.tails), and each op's HSET is
-- its own value then the list unpacked. Made per op (a table of ~24 values that grew past its
-- size, then its garbage), it cost a resumed pipeline's done ~13k instructions under callgrind
-- (bench/probes/resumeParts.ts). Only a log written out already that stays within LOG_CAP takes
-- it: an implicit log is written out with the job's own stamps (`ca`, `ct`), and an entry past
-- the cap drops the oldest (an HDEL), so such an op makes its own list (compactSet).

-- Appends to `args` (`n` values so far) the fields and values of a compact op's HSET after its
-- own value, in lcMove's order, from its shared values at ARGV[t]; its log's count at
-- ARGV[logAt], then the entries, written when `logged`, after position `at` (nil: the log is
-- implicit and is written out first, from `ca` and `ct`). Returns the new length.
local function compactSet(args, n, M, jk, t, check, logAt, count, logged, at, ca, ct)
  local A = ARGV
  local num, field, text = M.num, M.field, M.text
  local nowT = lcNowText()
  if check then
    local v = A[t + 1]
    if v ~= '' then args[n + 1] = 's'; args[n + 2] = v; n = n + 2 end
    v = A[t + 2]
    if v ~= '' then args[n + 1] = 'p'; args[n + 2] = v; n = n + 2 end
    v = A[t + 3]
    if v ~= '' then
      -- As Redis would send the number (numText.lua), as the general path sends it.
      local c = num[v]
      if not c then c = tonumber(v); num[v] = c end
      local tx = text[c]
      if not tx then tx = numText(c); text[c] = tx end
      args[n + 1] = 'io'; args[n + 2] = tx; n = n + 2
    end
    -- (Its status stays: no `st` written.)
    args[n + 1] = 'ua'; args[n + 2] = nowT; n = n + 2
  else
    local v = A[t + 1]
    if v ~= '' then args[n + 1] = 's'; args[n + 2] = v; n = n + 2 end
    v = A[t]
    if v ~= '' then args[n + 1] = 'sn'; args[n + 2] = v; n = n + 2 end
    -- A done record has `tk` and `qs` emptied (lcMove.lua's DROP_DONE).
    args[n + 1] = 'st'; args[n + 2] = 'done'; args[n + 3] = 'fa'; args[n + 4] = nowT
    args[n + 5] = 'tk'; args[n + 6] = ''; args[n + 7] = 'qs'; args[n + 8] = ''; n = n + 8
  end
  if not logged then return n end
  if not at then
    -- IMPLICIT LOG: its standard start written out first (addLog.lua).
    at = 0
    if ca then at = 1; args[n + 1] = 'l1'; args[n + 2] = ca .. ' enqueued'; n = n + 2 end
    if ct then
      at = at + 1
      args[n + 1] = at == 1 and 'l1' or 'l2'; args[n + 2] = ct .. ' claimed'; n = n + 2
    end
  end
  for e = 1, count do
    at = at + 1
    local f = field[at]
    if not f then f = 'l' .. at; field[at] = f end
    local entry = A[logAt + e]
    local s = stamped[entry]
    if not s then s = logText(LC.now, entry); stamped[entry] = s end
    args[n + 1] = f; args[n + 2] = s; n = n + 2
    if at > LOG_CAP then redis.call('HDEL', jk, 'l' .. (at - LOG_CAP)) end
  end
  local tx = text[at]
  if not tx then tx = numText(at); text[at] = tx end
  args[n + 1] = 'ls'; args[n + 2] = tx
  return n + 2
end

local function lcCompactOp(b, t)
  local A = ARGV
  local id, token = A[b], A[b + 1]
  -- THE LEAN DONE: a done of the set the fast done before it in this call took (LC.lean: on a
  -- queue without keys, minimal records or machine gates), of a job not moved before in this call,
  -- running, with none of the fields that take it elsewhere (an inbox, parent, fan-out, watcher,
  -- dedupe key) and its log where the set's shared tail serves it: the fast done's writes, its
  -- index writes and stream entry held (THE HELD DONES, lcBatch.lua), with no look-up of what the
  -- call already knows. Any other job goes on below with the record read here.
  local lean, r0 = LC.lean, nil
  if lean and lean.t == t and not lcMoved[id] then
    local jk = lean.kp .. id
    local r = redisCall('HMGET', jk, 'st', 'tk', 'ls', 'ib', 'par', 'fg', 'wt', 'ct', 'ca', 'dk', 'e')
    -- THE FENCE (lcGuard): no such job, or not this worker's lease.
    if not r[1] or token == '' or r[2] ~= token then return 0 end
    local tail = lean.tails[r[3] or '']
    if tail and UPDATABLE[r[1]] and not (r[4] or r[5] or r[6] or r[7] or r[10]) then
      redisCall('HSET', jk, 'o', A[b + 2], unpack(tail))
      if r[11] then redisCall('HDEL', jk, 'e') end
      lcDoneHeld(id, r[9], r[8])
      return 1
    end
    r0 = r
  end
  local compact = COMMIT_COMPACT[LC.compactAt[t]]
  local check = compact.kind == 'checkpoint'
  local jk = LC.kp .. 'job:' .. id
  -- ORDER (lcBatch.lua), as lcMove keeps it: a job moved before in this call (a checkpoint, then
  -- the next: a run's steps often land in one call) flushes first when that move wrote indexes,
  -- else its stream entry goes to a group opened at or after its last one's.
  local prev, minPos = lcMoved[id], nil
  if prev then
    if prev % 2 == 1 then lcFlush() else minPos = prev / 2 end
  end
  do
    local st, tk, ls, lr, ib, par, fg, wt, ct, ca, dk, ck, rm, oldError
    -- A run's FIRST CHECKPOINT (its log starts with "started"; a resumed run's says "resumed"):
    -- its job's log is most often still implicit, and is written out with `ca` and `ct`
    -- (addLog.lua), so they are read with the rest, where an HMGET of their own cost a
    -- redis.call. Only a hint of what to read: a job whose log is explicit already reads them for
    -- nothing, one whose log is implicit without it reads them below.
    local first = check and A[t + 5] == '{"type":"started"}'
    if first then
      if LC.minimal then
        local r = redis.call('HMGET', jk, 'st', 'tk', 'ls', 'lr', 'ca', 'ct', 'rm')
        st, tk, ls, lr, ca, ct, rm = r[1], r[2], r[3], r[4], r[5], r[6], r[7]
      else
        local r = redis.call('HMGET', jk, 'st', 'tk', 'ls', 'lr', 'ca', 'ct')
        st, tk, ls, lr, ca, ct = r[1], r[2], r[3], r[4], r[5], r[6]
      end
    elseif check then
      if LC.minimal then
        local r = redis.call('HMGET', jk, 'st', 'tk', 'ls', 'lr', 'rm')
        st, tk, ls, lr, rm = r[1], r[2], r[3], r[4], r[5]
      else
        local r = redis.call('HMGET', jk, 'st', 'tk', 'ls', 'lr')
        st, tk, ls, lr = r[1], r[2], r[3], r[4]
      end
    else
      -- `dk`: a job made under a dedupe key frees it as it ends (lcMove's ddRelease); asked here,
      -- a field the hash lacks costs less than the HGET of it lcMove makes for every job with a log.
      -- `e` (an earlier attempt's error, which a done drops): asked here, where an HDEL of it
      -- cost every done a redis.call.
      -- `ck` and `rm` only on a queue that has had either (LC.keyed, LC.minimal).
      if LC.keyed or LC.minimal then
        local r = redis.call('HMGET', jk, 'st', 'tk', 'ls', 'ib', 'par', 'fg', 'wt', 'ct', 'ca', 'dk', 'e', 'ck', 'rm')
        st, tk, ls, ib, par, fg, wt = r[1], r[2], r[3], r[4], r[5], r[6], r[7]
        ct, ca, dk, oldError, ck, rm = r[8], r[9], r[10], r[11], r[12], r[13]
      else
        -- (Read already when THE LEAN DONE above did not take it: the same fields.)
        local r = r0 or redis.call('HMGET', jk, 'st', 'tk', 'ls', 'ib', 'par', 'fg', 'wt', 'ct', 'ca', 'dk', 'e')
        st, tk, ls, ib, par, fg, wt = r[1], r[2], r[3], r[4], r[5], r[6], r[7]
        ct, ca, dk, oldError = r[8], r[9], r[10], r[11]
      end
    end
    -- THE FENCE (lcGuard): no such job, or not this worker's lease.
    if not st or token == '' or tk ~= token then return 0 end
    local fast
    if check then fast = st == A[t] and not rm
    else fast = UPDATABLE[st] and not (ib or par or fg or wt or rm or lcGated()) end
    if fast then
      local M = LC.memo
      if not M then M = { num = {}, field = {}, text = {}, tails = {} }; LC.memo = M end
      local num = M.num
      local logAt = check and t + 4 or t + 2
      local count = num[A[logAt]]
      if not count then count = tonumber(A[logAt]); num[A[logAt]] = count end
      -- The audit log (addLog.lua): a done whose log stays implicit (none yet, and only its plain
      -- "done") writes none.
      local logged = check or ls or count ~= 1 or A[logAt + 1] ~= '{"type":"done"}'
      local at = ls and num[ls]
      if ls and not at then
        at = tonumber(ls)
        num[ls] = at
      end
      -- Its own value: a checkpoint's snapshot, a done's output.
      local own = A[b + 2]
      local tail, args, n
      if not logged or (at and at + count <= LOG_CAP) then
        -- THE SHARED TAIL (see compactSet), made once per set and log position.
        local byLog = M.tails[t]
        if not byLog then byLog = {}; M.tails[t] = byLog end
        tail = byLog[ls or '']
        if not tail then
          tail = {}
          compactSet(tail, 0, M, jk, t, check, logAt, count, logged, at)
          byLog[ls or ''] = tail
        end
      else
        if not at and check and not first then
          local r = redis.call('HMGET', jk, 'ca', 'ct')
          ca, ct = r[1], r[2]
        end
        -- The table made at its usual size.
        args = { false, false, false, false, false, false, false, false, false, false, false, false, false,
          false, false, false }
        n = 0
        if not check then
          args[1] = 'o'; args[2] = own; n = 2
        elseif own ~= '' then
          args[1] = 'sn'; args[2] = own; n = 2
        end
        n = compactSet(args, n, M, jk, t, check, logAt, count, logged, at, ca, ct)
      end
      if check then
        if not tail then redis.call('HSET', jk, unpack(args, 1, n))
        elseif own ~= '' then redis.call('HSET', jk, 'sn', own, unpack(tail))
        else redis.call('HSET', jk, unpack(tail)) end
        -- A checkpoint: the job made progress, so its lease requeues start over.
        if lr then redis.call('HDEL', jk, 'lr') end
        lcMoved[id] = lcTell(id, 'checkpoint', st, minPos) * 2
        return 1
      end
      -- lcMove's done of a running job: its tally, out of `active` (and its key's slot), written,
      -- in `done`, told, its dedupe key freed.
      lcTally('done', ca, ct)
      lcRemove('active', id)
      if ck then lcFreeSlot(id, ck) end
      if tail then redis.call('HSET', jk, 'o', own, unpack(tail)) else redis.call('HSET', jk, unpack(args, 1, n)) end
      -- The set's next dones may take THE LEAN DONE (above).
      if tail and not (LC.keyed or LC.minimal or lcGated()) then
        local lean = LC.lean
        if not lean or lean.t ~= t then LC.lean = { t = t, tails = M.tails[t], kp = LC.kp .. 'job:' } end
      end
      if oldError then redis.call('HDEL', jk, 'e') end
      local nowT = lcNowText()
      lcIndex('done', nowT, id)
      lcMoved[id] = lcTell(id, 'done', 'done', minPos) * 2 + 1
      if ls and dk then ddRelease({ id = id, jk = jk, ls = ls }) end
      return 1
    end
  end
  -- The general way, with the op as a record (its values checked by readCommitOps).
  local op = { kind = compact.kind, id = id, token = token }
  for i, f in ipairs(compact.own) do
    if A[b + 1 + i] ~= '' then op[f] = A[b + 1 + i] end
  end
  local pos = t
  for _, f in ipairs(compact.shared) do
    local v, holds = A[pos], COMMIT_OP_TYPES[f]
    if holds == 'entries' then
      local list = {}
      for e = 1, tonumber(v) do list[e] = A[pos + e] end
      op[f] = list
      pos = pos + #list
    elseif v ~= '' then
      op[f] = holds == 'count' and tonumber(v) or v
    end
    pos = pos + 1
  end
  return nil, op
end
