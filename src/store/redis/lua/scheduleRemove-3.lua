--[[ scheduleRemove: deletes one schedule (its body, revision and due entry) at once.
KEYS[1] defs hash  KEYS[2] revs hash  KEYS[3] due zset
ARGV[1] id
Returns 1 when it existed, 0 when not. A supervisor holding it then fails its compare-and-set
(schedulePut-3.lua with the old revision: the revision is gone, so it reads 0) and fires nothing more.
]]
local id = ARGV[1]
redis.call('ZREM', KEYS[3], id)
redis.call('HDEL', KEYS[2], id)
return redis.call('HDEL', KEYS[1], id)
