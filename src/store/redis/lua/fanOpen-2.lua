--[[ fanOpen: opens (once) a parent's fan-out record and returns what it holds so far.
KEYS: 1 the fan-out record (<prefix>:{<parent queue>}:fan:<parentId>:<group>), 2 the parent's job hash
ARGV: 1 child count, 2 policy ('failFast' | 'collect'), 3 group
Returns the record as a flat HGETALL: n, p, d (children finished), f (failed), x ('1' once
the parent was woken), r<index> (each child's outcome JSON).
]]
if redis.call('HSETNX', KEYS[1], 'n', ARGV[1]) == 1 then
  redis.call('HSET', KEYS[1], 'p', ARGV[2], 'd', 0, 'f', 0)
  local groups = redis.call('HGET', KEYS[2], 'fg')
  redis.call('HSET', KEYS[2], 'fg', (groups and (groups .. '\n') or '') .. ARGV[3] .. '\t' .. ARGV[1])
end
return redis.call('HGETALL', KEYS[1])
