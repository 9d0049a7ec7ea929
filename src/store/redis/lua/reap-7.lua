--[[ reap: requeues jobs whose lease passed, fails those past their lease-requeue budget, and
trims the failed index to the retention window (done and cancelled records and their index
entries are deleted by sweep-5.lua, which RedisStore.reap runs after this). Safe to run from
every worker at once: each step is idempotent, and a single-flight lock keeps the work to one
runner per interval. The lock is a rate limit, never a delay: it lapses by the time the
earliest running lease passes, so the reap that is due then is not turned away.
KEYS: 1 active, 2 queued, 3 failed, 4 dead, 5 events, 6 marker, 7 cancelled
ARGV: 1 key prefix, 2 events max length, 3 max lease requeues, 4 retention ms, 5 lock ms
Each job taken back is remembered in the queue's `reaped` zset with the worker whose lease passed
(the fleet's view of a gone supervisor: roles/Fleet.ts), REAPED_KEPT_MS and REAPED_CAP at most.
Returns { requeued ids, failed ids, next due ms, ran }: next due is the ms until the earliest
running lease passes (for a caller the lock turned away: or until the lock lapses, if later),
-1 when no job runs; ran is 0 when another worker held the lock (and nothing was done).
]]
--- @include "nowMs"
--- @include "lcState"
--- @include "lcRead"
--- @include "lcMove"
--- @include "lcBatch"
-- The keys this script names (the lifecycle derives the others from the prefix, ARGV[1]).
local activeKey, failedKey = KEYS[1], KEYS[3]
LC.kp, LC.maxLen, LC.ttl = ARGV[1], ARGV[2], tonumber(ARGV[4])
local maxReq, lockMs = tonumber(ARGV[3]), tonumber(ARGV[5])
if not LC.ttl or not maxReq or not lockMs or lockMs <= 0 then
  return redis.error_reply('BAD_REAP bad budget, retention or lock ms')
end
local lockKey = LC.kp .. 'reaplock'

-- Ms until the earliest running lease passes (0: one has already), -1 when none runs.
local function dueIn(now)
  local first = redis.call('ZRANGE', activeKey, 0, 0, 'WITHSCORES')
  if #first == 0 then return -1 end
  return math.max(0, tonumber(first[2]) - now)
end

if not redis.call('SET', lockKey, '1', 'NX', 'PX', lockMs) then
  local due = dueIn(nowMs())
  if due >= 0 then due = math.max(due, redis.call('PTTL', lockKey)) end
  return { {}, {}, due, 0 }
end
LC.now = nowMs()
local expired = redis.call('ZRANGEBYSCORE', activeKey, '-inf', LC.now, 'LIMIT', 0, 500)
local requeued, failed = {}, {}
local reapedKey = LC.kp .. 'reaped'
-- The worker of a lease token '<workerId>:<n>'.
local function remember(tk, id, outcome)
  local worker = string.match(tk or '', '^(.*):%d+$') or ''
  redis.call('ZADD', reapedKey, LC.now, cjson.encode({ w = worker, id = id, o = outcome }))
end
for _, id in ipairs(expired) do
  local j = lcRead(id, true)
  local tk = j.tk -- read before the move clears the lease
  if j.st == 'loading' or j.st == 'working' then
    local lr = (tonumber(j.lr) or 0) + 1
    if lr > maxReq and j.cx ~= '1' then
      local err = '{"name":"LeaseExpiredError","message":"lease expired ' .. lr .. ' times (budget ' .. maxReq .. ')","code":"LEASE_EXPIRED"}'
      lcMove(j, 'failed', { kind = 'failed', set = { 'lr', lr, 'e', err }, error = err,
        log = { '{"type":"failed","code":"LEASE_EXPIRED","leaseRequeues":' .. lr .. '}' } })
      failed[#failed + 1] = id
      remember(tk, id, 'failed')
    else
      -- A cancel was asked for and the worker is gone: the CANCEL GUARD ends it cancelled.
      local st = lcMove(j, 'queued', { kind = 'lease-requeued', set = { 'lr', lr },
        log = { '{"type":"lease-requeued","leaseRequeues":' .. lr .. '}' },
        cancelLog = '{"type":"cancelled","reason":"lease expired after cancel"}' })
      if st == 'queued' then
        requeued[#requeued + 1] = id
        remember(tk, id, 'requeued')
      end
    end
  else
    -- Not a running job (a stale entry): only the index entry goes.
    lcRemove('active', id)
  end
end
lcFlush()
if #expired > 0 then
  redis.call('ZREMRANGEBYSCORE', reapedKey, '-inf', LC.now - REAPED_KEPT_MS)
  redis.call('ZREMRANGEBYRANK', reapedKey, 0, -REAPED_CAP - 1)
end
-- Failed records are dead letters (kept for failedTtlMs, see sweep-5.lua, or until purged); older than the
-- window they drop out of the status index, and stay listed in `dead` or `broken`.
redis.call('ZREMRANGEBYSCORE', failedKey, '-inf', LC.now - LC.ttl)
local due = dueIn(LC.now)
-- (A lease passed already, past this call's batch, leaves the lock as it is: one batch per lock.)
if due > 0 and due < lockMs then redis.call('PEXPIRE', lockKey, due) end
return { requeued, failed, due, 1 }
