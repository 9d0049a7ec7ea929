--[[ purgeDead: empties the dead-letter set; the records then expire like any finished job.
KEYS: 1 dead, 2 failed
ARGV: 1 key prefix, 2 finished TTL ms
Returns the number of dead letters purged.
]]
local kp, ttl = ARGV[1], tonumber(ARGV[2])
local ids = redis.call('ZRANGE', KEYS[1], 0, -1)
for _, id in ipairs(ids) do
  redis.call('PEXPIRE', kp .. 'job:' .. id, ttl)
end
redis.call('DEL', KEYS[1])
return #ids
