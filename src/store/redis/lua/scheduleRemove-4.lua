--[[ scheduleRemove: deletes one schedule (its body, revision, state, recent actions and due
entry) at once.
KEYS[1] defs hash  KEYS[2] revs hash  KEYS[3] due zset  KEYS[4] state hash
ARGV[1] id, ARGV[2] the schedules' key prefix ("<prefix>:{~schedules}:"; its recent list is <prefix>recent:<id>)
Returns 1 when it existed, 0 when not. A supervisor holding it then fails its compare-and-set
(schedulePut-4.lua with the old revision: the revision is gone, so it reads 0) and fires nothing more.
]]
local id = ARGV[1]
redis.call('ZREM', KEYS[3], id)
redis.call('HDEL', KEYS[2], id)
redis.call('HDEL', KEYS[4], id)
redis.call('DEL', ARGV[2] .. 'recent:' .. id)
return redis.call('HDEL', KEYS[1], id)
