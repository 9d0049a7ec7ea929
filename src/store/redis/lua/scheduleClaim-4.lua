--[[ scheduleClaim: takes the schedules due by Redis's clock, holding each for a lease.
KEYS[1] due zset  KEYS[2] defs hash  KEYS[3] revs hash  KEYS[4] state hash
ARGV[1] most schedules to take, ARGV[2] lease ms
Returns { now, next, id1, rev1, body1, state1, id2, ... } (state '' for a schedule stored whole
in its body; the recent actions are not sent: the loop only appends to them): `now` Redis's clock (ms), `next` the earliest
due time left after the claim ('' when none). Each schedule taken has its due time moved to
now + lease: other supervisors pass it by until the holder writes it (schedulePut-4.lua) or the
lease passes (the holder died: it comes due again, and the next holder fires the same ticks,
whose job ids are made from the tick times, so nothing runs twice).
A due entry without a body (left by nothing we write, but cheap to heal) is dropped.
Errors: BAD_SCHEDULE <why>.
]]
--- @include "nowMs"
local dueKey, defsKey, revsKey, stateKey = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local max, leaseMs = tonumber(ARGV[1]), tonumber(ARGV[2])
if not max or max < 1 or max % 1 ~= 0 or not leaseMs or leaseMs <= 0 then
  return redis.error_reply('BAD_SCHEDULE claim count or lease ms')
end
local now = nowMs()
local ids = redis.call('ZRANGEBYSCORE', dueKey, '-inf', now, 'LIMIT', 0, max)
local out = { tostring(now), '' }
for _, id in ipairs(ids) do
  local body = redis.call('HGET', defsKey, id)
  if body then
    redis.call('ZADD', dueKey, now + leaseMs, id)
    out[#out + 1] = id
    out[#out + 1] = redis.call('HGET', revsKey, id) or '0'
    out[#out + 1] = body
    out[#out + 1] = redis.call('HGET', stateKey, id) or ''
  else
    redis.call('ZREM', dueKey, id)
  end
end
local first = redis.call('ZRANGE', dueKey, 0, 0, 'WITHSCORES')
if first[2] then out[2] = first[2] end
return out
