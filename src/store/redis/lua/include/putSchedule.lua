-- One schedule's compare-and-set write (schedulePut-4.lua): returns the new revision, or false
-- when the stored revision is not `expected` ('' any, '0' absent).
-- `body` false keeps the stored one (a tick's write; the caller checked that `expected` names a
-- revision, so a schedule removed meanwhile fails the compare-and-set instead of losing its body).
-- `state` false: the body is the whole schedule (written before the split): state cleared and
-- recent emptied. Else `state` is set and ARGV[first..last] appended to recent, of which
-- the newest `kept` are the schedule's (the list holds up to 2 * kept: trimmed now and then).
-- Arguments are checked by the caller before its first write (NO HALF-APPLIED CALL).
local function putSchedule(defsKey, revsKey, dueKey, stateKey, recentKey, id, body, dueMs, expected, state, first, last, kept)
  local rev = tonumber(redis.call('HGET', revsKey, id) or '0')
  if expected ~= '' and tonumber(expected) ~= rev then return false end
  rev = rev + 1
  if body then redis.call('HSET', defsKey, id, body) end
  redis.call('HSET', revsKey, id, rev)
  if dueMs then redis.call('ZADD', dueKey, dueMs, id) else redis.call('ZREM', dueKey, id) end
  if state then
    redis.call('HSET', stateKey, id, state)
    if last >= first then
      -- Trimmed when twice `kept` long, not at each write (a tick's write appends one action:
      -- the LTRIM was one command in six of every tick); readers take the last `kept`.
      if redis.call('RPUSH', recentKey, unpack(ARGV, first, last)) > 2 * kept then
        redis.call('LTRIM', recentKey, -kept, -1)
      end
    end
  else
    redis.call('HDEL', stateKey, id)
    redis.call('DEL', recentKey)
  end
  return rev
end
