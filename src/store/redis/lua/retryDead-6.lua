--[[ retryDead: puts a dead-lettered (or broken) job back in line with fresh attempts: the
lifecycle's REDRIVE (failed -> queued). It clears exactly what a fresh attempt must not see:
the error, the finish time, the output, a cancel request, the attempt and lease-requeue counts;
and it keeps what the attempt resumes from:
  - a pipeline resumes from the snapshot its failed attempt would have retried from (`rs`),
    so completed steps do not run again; a broken job (never run on this version) keeps its
    last checkpoint; a simple job starts afresh;
  - a parent's fan-out records keep the outcomes of children that ended done and drop the
    others (marked `rv`), so the re-run fan-out enqueues those children again (enqueue-5.lua
    revives a failed or cancelled child whose outcome was dropped) instead of failing at once.
The inbox was emptied when the job failed (its position went with it): events sent after the
redrive are read from the start of a new list.
KEYS: 1 dead, 2 broken, 3 failed, 4 queued, 5 events, 6 marker
ARGV: 1 key prefix, 2 events max length, 3 job id
Errors: JOB_NOT_FOUND <id> when it is in neither set or has no record.
]]
--- @include "nowMs"
--- @include "lcState"
--- @include "lcRead"
--- @include "lcMove"
--- @include "lcBatch"
--- @include "fanKeys"
-- The keys this script names (the lifecycle derives the others from the prefix, ARGV[1]).
local deadKey, brokenKey = KEYS[1], KEYS[2]
LC.kp, LC.maxLen = ARGV[1], ARGV[2]
local id = ARGV[3]
local inDead = redis.call('ZSCORE', deadKey, id)
local inBroken = redis.call('ZSCORE', brokenKey, id)
local j = lcRead(id, true)
if not (inDead or inBroken) or not j.st then return redis.error_reply('JOB_NOT_FOUND ' .. id) end
if j.st ~= 'failed' then
  -- Listed but not failed (a record changed by hand): only the listing goes.
  redis.call('ZREM', deadKey, id)
  redis.call('ZREM', brokenKey, id)
  return redis.error_reply('JOB_NOT_FOUND ' .. id)
end
LC.now = nowMs()
local rs, machine = unpack(redis.call('HMGET', j.jk, 'rs', 'm'))
if not machine then return redis.error_reply('JOB_NOT_FOUND ' .. id) end
local drop = { 'e', 'fa', 'o', 'cx', 'rs', 'rl' }
local set = { 'a', 1, 'lr', 0 }
if rs then
  set[#set + 1] = 'sn'; set[#set + 1] = rs
elseif not inBroken then
  drop[#drop + 1] = 'sn'; drop[#drop + 1] = 's'
end
redis.call('HDEL', j.jk, unpack(drop))
redis.call('PERSIST', j.jk)
if j.fg then
  redis.call('PERSIST', LC.kp .. 'children:' .. id)
  for _, fk in ipairs(fanKeys(LC.kp, id, j.fg)) do
    local rec = redis.call('HGETALL', fk)
    local dropped, failedDropped = {}, 0
    for i = 1, #rec, 2 do
      local f, v = rec[i], rec[i + 1]
      if string.sub(f, 1, 1) == 'r' and string.sub(f, 2, 2) ~= 'v' and string.sub(v, 1, 11) ~= '{"s":"done"' then
        dropped[#dropped + 1] = f
      end
    end
    if #dropped > 0 then
      redis.call('HDEL', fk, 'x', unpack(dropped))
      redis.call('HINCRBY', fk, 'd', -#dropped)
      redis.call('HSET', fk, 'f', 0, 'rv', '1')
    end
    redis.call('PERSIST', fk)
  end
end
-- Read before the HDEL above: the cancel request and run-at time are gone now.
j.cx, j.ra = nil, nil
lcMove(j, 'queued', { kind = 'redriven', set = set, log = { '{"type":"redriven"}' } })
lcFlush()
return 1
