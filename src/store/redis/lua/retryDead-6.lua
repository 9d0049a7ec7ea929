--[[ retryDead: puts a dead-lettered (or broken) job back in line with fresh attempts.
KEYS: 1 dead, 2 broken, 3 failed, 4 queued, 5 events, 6 marker
ARGV: 1 key prefix, 2 events max length, 3 job id
Errors: JOB_NOT_FOUND <id> when it is in neither set or has no record.
]]
--@include common
local kp, maxLen, id = ARGV[1], ARGV[2], ARGV[3]
local jk = kp .. 'job:' .. id
local inDead = redis.call('ZSCORE', KEYS[1], id) or redis.call('ZSCORE', KEYS[2], id)
local r = redis.call('HMGET', jk, 'qs', 'ls', 'm')
if not inDead or not r[3] then return redis.error_reply('JOB_NOT_FOUND ' .. id) end
local now = nowMs()
redis.call('ZREM', KEYS[1], id)
redis.call('ZREM', KEYS[2], id)
redis.call('ZREM', KEYS[3], id)
redis.call('HDEL', kp .. 'brokenwhy', id)
redis.call('HDEL', jk, 'e', 'fa', 'sn', 's', 'cx', 'o')
local args = { 'st', 'queued', 'a', 1, 'lr', 0, 'ua', now, 'tk', '' }
addLog(args, jk, r[2], now, { '{"type":"redriven"}' })
redis.call('HSET', jk, unpack(args))
redis.call('PERSIST', jk)
redis.call('ZADD', KEYS[4], r[1], id)
redis.call('ZADD', KEYS[6], 0, 'w')
emit(KEYS[5], maxLen, now, id, 'redriven', 'queued')
return 1
