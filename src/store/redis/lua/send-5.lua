--[[ send: delivers an event to a job's inbox, in order. A parked job is put back in line to
take it in; a running job's worker is told over its control channel.
KEYS: 1 queued, 2 waiting, 3 delayed, 4 events, 5 marker
ARGV: 1 key prefix, 2 events max length, 3 job id, 4 event JSON, 5 event type
Errors: JOB_NOT_FOUND <id>; JOB_FINISHED <id> <status>.
]]
--@include common
local kp, maxLen, id, event, etype = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5]
local jk = kp .. 'job:' .. id
local r = redis.call('HMGET', jk, 'st', 'qs', 'ls', 'tk')
if not r[1] then return redis.error_reply('JOB_NOT_FOUND ' .. id) end
local st = r[1]
if st == 'done' or st == 'failed' or st == 'cancelled' then
  return redis.error_reply('JOB_FINISHED ' .. id .. ' ' .. st)
end
local now = nowMs()
redis.call('RPUSH', kp .. 'inbox:' .. id, event)
-- `ib` marks a job that has an inbox list, so finishing jobs that never got an event skip the DEL.
local args = { 'ua', now, 'ib', '1' }
if st == 'waiting' then
  redis.call('ZREM', KEYS[2], id)
  redis.call('ZREM', KEYS[3], id)
  redis.call('ZADD', KEYS[1], r[2], id)
  redis.call('ZADD', KEYS[5], 0, 'w')
  args[#args + 1] = 'st'; args[#args + 1] = 'queued'
elseif (st == 'working' or st == 'loading') and tokenWorker(r[4]) then
  redis.call('PUBLISH', kp .. 'ctl:' .. tokenWorker(r[4]), 'event ' .. id)
end
addLog(args, jk, r[3], now, { '{"type":"event-received","event":' .. cjson.encode(etype) .. '}' })
redis.call('HSET', jk, unpack(args))
emit(KEYS[4], maxLen, now, id, 'event-received', st == 'waiting' and 'queued' or st)
return 1
