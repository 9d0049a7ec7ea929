--[[ heartbeat: extends every lease a worker still holds, in one call.
KEYS[1] active zset
ARGV[1] key prefix, ARGV[2] lease ms, then pairs: id, token
Returns per pair: 0 held (extended), 1 lost (token differs: the worker MUST drop the job),
2 held and a cancel was requested (the worker aborts the job and ends it cancelled).
]]
--@include common
local kp, leaseMs = ARGV[1], tonumber(ARGV[2])
local now = nowMs()
local out = {}
local za = {}
for i = 3, #ARGV, 2 do
  local id, token = ARGV[i], ARGV[i + 1]
  local r = redis.call('HMGET', kp .. 'job:' .. id, 'tk', 'cx')
  if r[1] ~= token then
    out[#out + 1] = 1
  else
    za[#za + 1] = now + leaseMs; za[#za + 1] = id
    out[#out + 1] = (r[2] == '1') and 2 or 0
  end
end
if #za > 0 then redis.call('ZADD', KEYS[1], 'XX', unpack(za)) end
return out
