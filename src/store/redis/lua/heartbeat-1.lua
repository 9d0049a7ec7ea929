--[[ heartbeat: extends every lease a worker still holds, in one call.
KEYS[1] active zset
ARGV[1] key prefix, ARGV[2] lease ms, then pairs: id, token (any number: a supervisor with
concurrency 10,000 sends 10,000 pairs)
Returns per pair: 0 held (extended), 1 lost (token differs: the worker MUST drop the job),
2 held and a cancel was requested (the worker aborts the job and ends it cancelled).
Errors: BAD_HEARTBEAT <why>.
]]
--- @include "nowMs"
local activeKey = KEYS[1]
local kp, leaseMs = ARGV[1], tonumber(ARGV[2])
if not leaseMs or leaseMs <= 0 or #ARGV % 2 ~= 0 then
  return redis.error_reply('BAD_HEARTBEAT lease ms or id/token pairs')
end
local now = nowMs()
local out = {}
local za = {}
for i = 3, #ARGV, 2 do
  local id, token = ARGV[i], ARGV[i + 1]
  local tk, cx = unpack(redis.call('HMGET', kp .. 'job:' .. id, 'tk', 'cx'))
  if tk ~= token or token == '' then
    out[#out + 1] = 1
  else
    za[#za + 1] = now + leaseMs; za[#za + 1] = id
    out[#out + 1] = (cx == '1') and 2 or 0
  end
end
-- In slices: Lua's unpack has a limit on how many values it spreads.
for s = 1, #za, 4000 do
  redis.call('ZADD', activeKey, 'XX', unpack(za, s, math.min(s + 3999, #za)))
end
return out
