--- @include "lcState"
-- Reads what a move needs in one HMGET. A field a small job's hash does not have costs a scan
-- of the whole hash (a listpack), so a finish from a running status reads only the seven it
-- needs; `full` adds what the other moves need (the cancel request, place in line, band, run-at,
-- lease requeues). A finish needs no `cx`: the cancel guard does not apply to it. Both read `ck`
-- (the concurrency key: a job that has one frees its slot as it leaves, lcLeave, lcFlow.lua);
-- the finish's read not when LC.keyed says no job of the queue has one (the hot path stays as it was).
-- The finish's read takes `ct` and `ca` too, for the ending's tally (lcTally.lua): every claimed
-- job has both, so they cost no scan, where lcMove's own HMGET of them cost a command.
-- `full` = 'update': a checkpoint's read, for a write that keeps the job's status (UPDATABLE): the
-- fence, the log and the lease requeues are all it needs (no cancel guard, no index move, no
-- leaving), so it names no field a running job's hash lacks but `lr`; a job whose status the
-- write would change is read again in full (commit-12.lua). Its reply is marked `upd`.
local function lcReadHash(id, full)
  local jk = LC.kp .. 'job:' .. id
  if full == 'update' then
    local st, tk, ls, lr = unpack(redis.call('HMGET', jk, 'st', 'tk', 'ls', 'lr'))
    return { id = id, jk = jk, st = st, tk = tk, ls = ls, lr = lr, upd = true }
  end
  if not full then
    if not LC.keyed then
      local st, tk, ls, ib, par, fg, wt, ct, ca = unpack(redis.call('HMGET', jk, 'st', 'tk', 'ls', 'ib', 'par', 'fg', 'wt',
        'ct', 'ca'))
      return { id = id, jk = jk, st = st, tk = tk, ls = ls, ib = ib, par = par, fg = fg, wt = wt, ct = ct, ca = ca }
    end
    local st, tk, ls, ib, par, fg, wt, ct, ca, ck = unpack(redis.call('HMGET', jk, 'st', 'tk', 'ls', 'ib', 'par', 'fg',
      'wt', 'ct', 'ca', 'ck'))
    return { id = id, jk = jk, st = st, tk = tk, ls = ls, ib = ib, par = par, fg = fg, wt = wt, ct = ct, ca = ca, ck = ck }
  end
  local st, tk, cx, ls, ib, par, fg, wt, qs, lr, ra, pr, ck = unpack(redis.call('HMGET', jk,
    'st', 'tk', 'cx', 'ls', 'ib', 'par', 'fg', 'wt', 'qs', 'lr', 'ra', 'pr', 'ck'))
  return { id = id, jk = jk, st = st, tk = tk, cx = cx, ls = ls, ib = ib, par = par, fg = fg, wt = wt,
    qs = qs, lr = lr, ra = ra, pr = pr, ck = ck, full = true }
end

-- `rm` (a MINIMAL RECORD: lcMove writes no log or stream entry for it, and deletes it as it ends
-- done) is read apart, and only on a queue that has had one (LC.minimal): a field a hash does
-- not have costs every read a scan of it, ~3.8k instructions a job under callgrind.
local function lcRead(id, full)
  local j = lcReadHash(id, full)
  if LC.minimal and j.st then j.rm = redis.call('HGET', j.jk, 'rm') end
  return j
end
