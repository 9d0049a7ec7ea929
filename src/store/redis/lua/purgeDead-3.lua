--[[ purgeDead: empties the dead-letter and broken sets, at most ARGV[3] entries per call (the
caller calls again while a call comes back full); each record then expires like a finished
job, and so do the fan-out records and children index of a purged parent. With ARGV[4], only
that one job is purged (DELETE /dead-letters/:id), and only when it is in either set.
KEYS: 1 dead, 2 failed, 3 broken
ARGV: 1 key prefix, 2 finished TTL ms, 3 limit, 4 (optional) the one job id
Returns the number of entries purged by this call (0 for an id in neither set).
]]
-- It only deletes and expires: it runs at maxmemory too, to free memory (a function's flag).
--- @flags allow-oom
--- @include "fanKeys"
--- @include "recordKeys"
local deadKey, failedKey, brokenKey = KEYS[1], KEYS[2], KEYS[3]
local kp, ttl, limit, only = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4]
if not ttl or ttl <= 0 or not limit or limit < 1 then
  return redis.error_reply('BAD_PURGE bad retention or limit')
end
if only == '' then only = nil end

-- The record's keys (recordKeys.lua: its webhook bookkeeping and sent-event ids with it), its
-- fan-out records and children index expire like a finished job's.
local function expireJob(id, fromBroken)
  local jk = kp .. 'job:' .. id
  local fg = redis.call('HGET', jk, 'fg')
  for _, k in ipairs(recordKeys(kp, id)) do redis.call('PEXPIRE', k, ttl) end
  if fg then
    redis.call('PEXPIRE', kp .. 'children:' .. id, ttl)
    for _, fk in ipairs(fanKeys(kp, id, fg)) do redis.call('PEXPIRE', fk, ttl) end
  end
  redis.call('ZREM', failedKey, id)
  if fromBroken then redis.call('HDEL', kp .. 'brokenwhy', id) end
end

if only then
  for k, set in ipairs({ deadKey, brokenKey }) do
    if redis.call('ZSCORE', set, only) then
      expireJob(only, k == 2)
      redis.call('ZREM', set, only)
      return 1
    end
  end
  return 0
end

local purged = 0
for k, set in ipairs({ deadKey, brokenKey }) do
  local ids = redis.call('ZRANGE', set, 0, limit - purged - 1)
  for _, id in ipairs(ids) do expireJob(id, k == 2) end
  if #ids > 0 then
    for s = 1, #ids, 4000 do redis.call('ZREM', set, unpack(ids, s, math.min(s + 3999, #ids))) end
  end
  purged = purged + #ids
  if purged >= limit then break end
end
return purged
