--- @include "lcState"
--- @include "lcBatch"
--- @include "lcBare"
--- @include "lcGuard"
--- @include "lcMove"
--- @include "lcFlow"
--- @include "lcTally"
--- @include "lcDoneMinimal"
--- @include "redisCall"
-- THE PLAIN DONE: lcMove's done, for the job most jobs are (a running job with no parent,
-- fan-out, inbox, watcher or audit log of its own, not moved before in this call): the same
-- writes in a fraction of the Lua. Anything else takes lcMove. test/lifecycle/plainDone.test.ts
-- runs both on the same jobs and compares the records, indexes and stream they leave.
-- Returns 1 when written, 0 when refused (THE FENCE, or a status that cannot end done).
local PLAIN_DONE_LOG = { '{"type":"done"}' }
local function lcDonePlain(id, token, output)
  local jk = LC.kp .. 'job:' .. id
  -- `ct` and `ca` for its tally (lcTally.lua): every claimed job has both, so they cost no scan.
  -- `ma` for THE BARE RECORD's count (lcBare.lua): with `v`, both there or neither (THE DEFAULTS
  -- LEFT OUT, include/lcCreate.lua; a migrate may add `v` alone: the count is then short, and the
  -- record read whole, never the other way), and HLEN alone cannot tell them from rare fields.
  -- `ck` only on a queue that has had a job with a key, `rm` (a MINIMAL RECORD:
  -- lcDoneMinimal.lua) only on one that has had a minimal record.
  -- (commit-12.lua's claim reads its four fields the same way, inline as here: one function for
  -- both cost +1.4% redis-server instructions per plain job, +2.2% per minimal one, callgrind.)
  -- The reply is taken by index: unpack, a C function call, cost ~0.7k instructions a read more.
  local st, tk, ct, ca, ma, ck, rm
  if LC.minimal then
    if LC.keyed then
      local r = redisCall('HMGET', jk, 'st', 'tk', 'ct', 'ca', 'ma', 'ck', 'rm')
      st, tk, ct, ca, ma, ck, rm = r[1], r[2], r[3], r[4], r[5], r[6], r[7]
    else
      local r = redisCall('HMGET', jk, 'st', 'tk', 'ct', 'ca', 'ma', 'rm')
      st, tk, ct, ca, ma, rm = r[1], r[2], r[3], r[4], r[5], r[6]
    end
  elseif LC.keyed then
    local r = redisCall('HMGET', jk, 'st', 'tk', 'ct', 'ca', 'ma', 'ck')
    st, tk, ct, ca, ma, ck = r[1], r[2], r[3], r[4], r[5], r[6]
  else
    local r = redisCall('HMGET', jk, 'st', 'tk', 'ct', 'ca', 'ma')
    st, tk, ct, ca, ma = r[1], r[2], r[3], r[4], r[5]
  end
  if token == '' or tk ~= token then return 0 end
  -- THE BARE RECORD (lcBare.lua): the base fields, tk, ct (and ck, pr, rm) only, so none of the
  -- fields below; else they are read.
  local ls, ib, par, fg, wt, e
  local bare = false
  if ct then bare = lcBare(jk, ck and 8 or 7, ma, ma, rm) end
  if not bare then
    ls, ib, par, fg, wt, e = unpack(redisCall('HMGET', jk, 'ls', 'ib', 'par', 'fg', 'wt', 'e'))
  end
  -- Every job of a queue with machine gates takes lcMove (lcGate.lua): its gate slot frees there.
  -- A job with a concurrency key (`ck`) does not: its slot (if it holds one) frees below, as
  -- lcLeave frees it (lcFreeSlot, lcFlow.lua).
  if ls or ib or par or fg or wt or lcGated() or lcMoved[id] then
    local j = { id = id, jk = jk, st = st, tk = tk, ls = ls, ib = ib, par = par, fg = fg, wt = wt, ck = ck, ct = ct,
      ca = ca, rm = rm }
    if lcGuard(j, 'done', token) then return 0 end
    lcMove(j, 'done', { kind = 'done', log = PLAIN_DONE_LOG, implicit = not ls, output = output }, { 'o', output })
    return 1
  end
  if not UPDATABLE[st] then return 0 end
  if rm then return lcDoneMinimal(id, jk, ck, ca, ct) end
  local now = lcNowText()
  -- THE DONE RECORD EMPTIES `tk` and `qs` (as lcMove's done: include/lcMove.lua), where an HDEL
  -- of them cost a redis.call a job (~8k instructions of ~115k under callgrind). Emptied, not
  -- kept: a kept place in line (14 digits) took a finished record into jemalloc's next size
  -- class (+16 B a job kept, measured by MEMORY USAGE), two empty values do not.
  -- A bare record has no error (`e`) to drop; another only drops the one it has.
  redisCall('HSET', jk, 'o', output, 'st', 'done', 'fa', now, 'tk', '', 'qs', '')
  if e then redisCall('HDEL', jk, 'e') end
  lcRemove('active', id)
  if ck then lcFreeSlot(id, ck) end
  lcIndex('done', now, id)
  lcMoved[id] = lcTell(id, 'done', 'done') * 2 + 1
  lcTally('done', ca, ct)
  return 1
end
