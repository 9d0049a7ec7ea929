--[[ announce: a supervisor's heartbeat to the fleet (roles/Fleet.ts): its facts, seen now by the
server's clock; and supervisors not seen for FLEET_GONE_KEPT_MS are forgotten (so the fleet's
keys hold no more than the supervisors of the last hour, whoever reads them).
KEYS[1] facts hash, KEYS[2] seen zset
ARGV[1] worker id, ARGV[2] facts (JSON text)
Returns the time it was seen (ms).
]]
--- @include "nowMs"
local factsKey, seenKey = KEYS[1], KEYS[2]
local now = nowMs()
local old = redis.call('ZRANGEBYSCORE', seenKey, '-inf', now - FLEET_GONE_KEPT_MS, 'LIMIT', 0, 100)
for _, w in ipairs(old) do
  redis.call('HDEL', factsKey, w)
  redis.call('ZREM', seenKey, w)
end
redis.call('HSET', factsKey, ARGV[1], ARGV[2])
redis.call('ZADD', seenKey, now, ARGV[1])
return now
