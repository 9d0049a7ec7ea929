--[[ fanOpen: opens (once) a parent's fan-out record and returns what it holds so far.
KEYS: 1 the fan-out record (<prefix>:{<parent queue>}:fan:<parentId>:<group>), 2 the parent's job hash
ARGV: 1 child count, 2 policy ('failFast' | 'collect'), 3 group, 4 the parent's lease token ('' or
      absent: a read, or an open by a caller holding no lease)
Returns the record as a flat HGETALL: n, p, d (children finished), f (failed), x ('1' once
the parent was woken), r<index> (each child's outcome JSON).
Errors: LEASE_LOST when a token is given and the parent does not hold it (THE FENCE:
a worker whose lease passed opens nothing); nothing is written then.
Nothing is made for a parent that does not exist (no record with only `fg`, in no index).
]]
local fanRecordKey, parentKey = KEYS[1], KEYS[2]
local pst, ptk = unpack(redis.call('HMGET', parentKey, 'st', 'tk'))
local token = ARGV[4]
if token and token ~= '' and (not pst or ptk ~= token) then
  return redis.error_reply('LEASE_LOST')
end
if pst and redis.call('HSETNX', fanRecordKey, 'n', ARGV[1]) == 1 then
  redis.call('HSET', fanRecordKey, 'p', ARGV[2], 'd', 0, 'f', 0)
  local groups = redis.call('HGET', parentKey, 'fg')
  redis.call('HSET', parentKey, 'fg', (groups and (groups .. '\n') or '') .. ARGV[3] .. '\t' .. ARGV[1])
end
return redis.call('HGETALL', fanRecordKey)
