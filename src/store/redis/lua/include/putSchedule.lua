-- One schedule's compare-and-set write (schedulePut-3.lua, schedulePutMany-3.lua): returns the
-- new revision, or false when the stored revision is not `expected` ('' any, '0' absent).
-- Arguments are checked by the caller before its first write (NO HALF-APPLIED CALL).
local function putSchedule(defsKey, revsKey, dueKey, id, body, dueMs, expected)
  local rev = tonumber(redis.call('HGET', revsKey, id) or '0')
  if expected ~= '' and tonumber(expected) ~= rev then return false end
  rev = rev + 1
  redis.call('HSET', defsKey, id, body)
  redis.call('HSET', revsKey, id, rev)
  if dueMs then redis.call('ZADD', dueKey, dueMs, id) else redis.call('ZREM', dueKey, id) end
  return rev
end
