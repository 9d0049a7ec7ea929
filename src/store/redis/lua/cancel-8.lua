--[[ cancel: ends a job that is not running at once; asks a running job's worker to stop it.
KEYS: 1 queued, 2 delayed, 3 waiting, 4 cancelled, 5 events, 6 active, 7 meta, 8 marker
ARGV: 1 key prefix, 2 events max length, 3 finished TTL ms, 4 job id, 5 reason
Returns { result, status, hasChildren }: result 'cancelled' | 'requested' | 'finished';
hasChildren 1 when the job fanned out (the caller then walks its subtree).
Errors: JOB_NOT_FOUND <id>.
]]
--@include common
--@include fanin
local kp, maxLen, ttl, id, reason = ARGV[1], ARGV[2], tonumber(ARGV[3]), ARGV[4], ARGV[5]
local jk = kp .. 'job:' .. id
local r = redis.call('HMGET', jk, 'st', 'ls', 'tk', 'fg')
local kids = r[4] and 1 or 0
if not r[1] then return redis.error_reply('JOB_NOT_FOUND ' .. id) end
local st = r[1]
if st == 'done' or st == 'failed' or st == 'cancelled' then return { 'finished', st, kids } end
local now = nowMs()
local ls = r[2]
local entry = '{"type":"cancel-requested","reason":' .. cjson.encode(reason) .. '}'
local worker = tokenWorker(r[3])
if (st == 'loading' or st == 'working') and worker then
  local args = { 'cx', '1', 'ua', now }
  addLog(args, jk, ls, now, { entry })
  redis.call('HSET', jk, unpack(args))
  emit(KEYS[5], maxLen, now, id, 'cancel-requested', st)
  -- The worker's subscription hears this at once; its heartbeat is the fallback.
  redis.call('PUBLISH', kp .. 'ctl:' .. worker, 'cancel ' .. id)
  return { 'requested', st, kids }
end
redis.call('ZREM', KEYS[1], id)
redis.call('ZREM', KEYS[2], id)
redis.call('ZREM', KEYS[3], id)
redis.call('ZREM', KEYS[6], id)
local args = { 'st', 'cancelled', 'fa', now, 'tk', '', 'cx', '1' }
endCancelled(kp, jk, id, args, ls, '{"type":"cancelled","reason":' .. cjson.encode(reason) .. '}',
  KEYS[4], KEYS[5], now, maxLen, ttl)
return { 'cancelled', 'cancelled', kids }
