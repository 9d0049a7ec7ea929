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
--@include fanin
local kp, maxLen, maxReq, ttl = ARGV[1], ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4])
if not redis.call('SET', kp .. 'reaplock', '1', 'NX', 'PX', ARGV[5]) then return false end
local now = nowMs()
local expired = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, 500)
local requeued, failed = {}, {}
for _, id in ipairs(expired) do
  local jk = kp .. 'job:' .. id
  local r = redis.call('HMGET', jk, 'qs', 'lr', 'ls', 'st', 'cx')
  redis.call('ZREM', KEYS[1], id)
  if r[1] then
    local lr = (tonumber(r[2]) or 0) + 1
    local args = { 'lr', lr, 'tk', '', 'ua', now }
    if r[5] == '1' then
      -- A cancel was asked for and the worker is gone: nobody else will finish it.
      args[#args + 1] = 'st'; args[#args + 1] = 'cancelled'
      args[#args + 1] = 'fa'; args[#args + 1] = now
      endCancelled(kp, jk, id, args, r[3], '{"type":"cancelled","reason":"lease expired after cancel"}',
        KEYS[7], KEYS[5], now, maxLen, ttl)
    elseif lr > maxReq then
      local err = '{"name":"LeaseExpiredError","message":"lease expired ' .. lr .. ' times (budget ' .. maxReq .. ')","code":"LEASE_EXPIRED"}'
      args[#args + 1] = 'st'; args[#args + 1] = 'failed'
      args[#args + 1] = 'e'; args[#args + 1] = err
      args[#args + 1] = 'fa'; args[#args + 1] = now
      addLog(args, jk, r[3], now, { '{"type":"failed","code":"LEASE_EXPIRED","leaseRequeues":' .. lr .. '}' })
      redis.call('HSET', jk, unpack(args))
      redis.call('ZADD', KEYS[3], now, id)
      redis.call('ZADD', KEYS[4], now, id)
      notifyParent(kp, jk, id, 'failed', '{"s":"failed","e":' .. err .. '}', now, maxLen, nil, ttl)
      redis.call('DEL', kp .. 'inbox:' .. id)
      pushResult(kp, jk, id, nil)
      emit(KEYS[5], maxLen, now, id, 'failed', 'failed')
      failed[#failed + 1] = id
    else
      args[#args + 1] = 'st'; args[#args + 1] = 'queued'
      addLog(args, jk, r[3], now, { '{"type":"lease-requeued","leaseRequeues":' .. lr .. '}' })
      redis.call('HSET', jk, unpack(args))
      redis.call('ZADD', KEYS[2], r[1], id)
      emit(KEYS[5], maxLen, now, id, 'lease-requeued', 'queued')
      requeued[#requeued + 1] = id
    end
  end
end
if #requeued > 0 then redis.call('ZADD', KEYS[6], 0, 'w') end
-- Failed records are dead letters (kept until purged, see purgeDead-2.lua); older than the
-- window they drop out of the status index, and stay listed in `dead`.
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now - ttl)
return { requeued, failed }
