--[[ purgeDead: empties the dead-letter and broken sets, at most ARGV[3] entries per call (the
caller calls again while a call comes back full); each record then expires like a finished
job, and so do the fan-out records and children index of a purged parent.
KEYS: 1 dead, 2 failed, 3 broken
ARGV: 1 key prefix, 2 finished TTL ms, 3 limit
Returns the number of entries purged by this call.
]]
local kp, ttl, limit = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
if not ttl or ttl <= 0 or not limit or limit < 1 then
  return redis.error_reply('BAD_PURGE bad retention or limit')
end
local purged = 0
for k, set in ipairs({ KEYS[1], KEYS[3] }) do
  local ids = redis.call('ZRANGE', set, 0, limit - purged - 1)
  for _, id in ipairs(ids) do
    local jk = kp .. 'job:' .. id
    local fg = redis.call('HGET', jk, 'fg')
    redis.call('PEXPIRE', jk, ttl)
    if fg then
      redis.call('PEXPIRE', kp .. 'children:' .. id, ttl)
      for line in string.gmatch(fg, '[^\n]+') do
        redis.call('PEXPIRE', kp .. 'fan:' .. id .. ':' .. string.match(line, '^([^\t]*)'), ttl)
      end
    end
    redis.call('ZREM', KEYS[2], id)
    if k == 2 then redis.call('HDEL', kp .. 'brokenwhy', id) end
  end
  if #ids > 0 then
    for s = 1, #ids, 4000 do redis.call('ZREM', set, unpack(ids, s, math.min(s + 3999, #ids))) end
  end
  purged = purged + #ids
  if purged >= limit then break end
end
return purged
