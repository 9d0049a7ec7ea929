--[[ reap: requeues jobs whose lease passed, fails those past their lease-requeue budget, and
trims the failed index to the retention window (done and cancelled records and their index
entries are deleted by sweep-2.lua, which RedisStore.reap runs after this). Safe to run from
every worker at once: each step is idempotent, and a single-flight lock keeps the work to one
runner per interval.
KEYS: 1 active, 2 queued, 3 failed, 4 dead, 5 events, 6 marker, 7 cancelled
ARGV: 1 key prefix, 2 events max length, 3 max lease requeues, 4 retention ms, 5 lock ms
Returns { requeued ids, failed ids } or false when another worker holds the lock.
]]
--@include common
--@include lifecycle
--@include fanin
LC.kp, LC.maxLen, LC.ttl = ARGV[1], ARGV[2], tonumber(ARGV[4])
local maxReq, lockMs = tonumber(ARGV[3]), tonumber(ARGV[5])
if not LC.ttl or not maxReq or not lockMs or lockMs <= 0 then
  return redis.error_reply('BAD_REAP bad budget, retention or lock ms')
end
if not redis.call('SET', LC.kp .. 'reaplock', '1', 'NX', 'PX', lockMs) then return false end
LC.now = nowMs()
local expired = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', LC.now, 'LIMIT', 0, 500)
local requeued, failed = {}, {}
for _, id in ipairs(expired) do
  local j = lcRead(id, true)
  if j.st == 'loading' or j.st == 'working' then
    local lr = (tonumber(j.lr) or 0) + 1
    if lr > maxReq and j.cx ~= '1' then
      local err = '{"name":"LeaseExpiredError","message":"lease expired ' .. lr .. ' times (budget ' .. maxReq .. ')","code":"LEASE_EXPIRED"}'
      lcMove(j, 'failed', { kind = 'failed', set = { 'lr', lr, 'e', err }, error = err,
        log = { '{"type":"failed","code":"LEASE_EXPIRED","leaseRequeues":' .. lr .. '}' } })
      failed[#failed + 1] = id
    else
      -- A cancel was asked for and the worker is gone: the CANCEL GUARD ends it cancelled.
      local st = lcMove(j, 'queued', { kind = 'lease-requeued', set = { 'lr', lr },
        log = { '{"type":"lease-requeued","leaseRequeues":' .. lr .. '}' },
        cancelLog = '{"type":"cancelled","reason":"lease expired after cancel"}' })
      if st == 'queued' then requeued[#requeued + 1] = id end
    end
  else
    -- Not a running job (a stale entry): only the index entry goes.
    lcRemove('active', id)
  end
end
lcFlush()
-- Failed records are dead letters (kept until purged, see purgeDead-3.lua); older than the
-- window they drop out of the status index, and stay listed in `dead` or `broken`.
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', LC.now - LC.ttl)
return { requeued, failed }
