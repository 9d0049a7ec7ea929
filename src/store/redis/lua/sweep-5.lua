--[[ sweep: retention of ended records. Deletes done and cancelled records that finished before
now - finishedTtlMs, and failed ones (dead letters, broken jobs) that failed before now -
failedTtlMs, oldest first, at most ARGV[3] per index per call, with their index entries; then
trims `dead` and `broken` to ARGV[5] entries each, the oldest first. Called after each reap that
held the lock (RedisStore.reap), again while a call came back full.
KEYS: 1 done, 2 cancelled, 3 dead, 4 broken, 5 failed
ARGV: 1 key prefix, 2 finished TTL ms, 3 limit per index, 4 failed TTL ms, 5 dead-letter cap
Returns the largest count removed from one index (== limit: there may be more).

THE RETENTION RULE, written once (`retire` below): a record is deleted only while its status is
still that of the index (a record is never re-created under an id whose entry is still here, but
a stray entry must not delete a live job), and with it what only it needs (include/recordKeys.lua:
its webhook bookkeeping `hookmeta:<id>`, its inbox), and for a failed parent its fan-out records and children index
(a done or cancelled parent's expire by TTL: expireFans in include/lcMove.lua).

Why not a TTL per record: an expires entry (~37 B) and a PEXPIRE per finished job; the indexes
hold the finish times already. Purged dead letters get a TTL instead (purgeDead-3.lua).
]]
-- It only deletes and expires: it runs at maxmemory too, to free memory (a function's flag).
--- @flags allow-oom
--- @include "nowMs"
--- @include "fanKeys"
--- @include "recordKeys"
local doneKey, cancelledKey, deadKey, brokenKey, failedKey = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local kp, ttl, limit = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
local failedTtl, deadMax = tonumber(ARGV[4]), tonumber(ARGV[5])
if not ttl or not limit or limit < 1 or not failedTtl or not deadMax or deadMax < 0 then
  return redis.error_reply('BAD_SWEEP bad retention, limit or cap')
end
local now = nowMs()

-- Deletes the records of `ids` whose status is `status`, with what only they need, and takes
-- `ids` out of `index` (and, for failed records, out of every index a failed job is in).
local function retire(index, ids, status)
  if #ids == 0 then return end
  local gone = {}
  for _, id in ipairs(ids) do
    local jk = kp .. 'job:' .. id
    local st, fg = unpack(redis.call('HMGET', jk, 'st', 'fg'))
    if st == status then
      for _, k in ipairs(recordKeys(kp, id)) do gone[#gone + 1] = k end
      if status == 'failed' then
        if fg then
          gone[#gone + 1] = kp .. 'children:' .. id
          for _, fk in ipairs(fanKeys(kp, id, fg)) do gone[#gone + 1] = fk end
        end
        redis.call('HDEL', kp .. 'brokenwhy', id)
        redis.call('ZREM', failedKey, id)
      end
    end
  end
  for s = 1, #gone, 4000 do redis.call('DEL', unpack(gone, s, math.min(s + 3999, #gone))) end
  redis.call('ZREM', index, unpack(ids))
end

local most = 0
local function note(n) if n > most then most = n end end
-- The windows: done and cancelled by finishedTtlMs, dead letters and broken jobs by failedTtlMs.
local windows = { { doneKey, 'done', ttl }, { cancelledKey, 'cancelled', ttl }, { deadKey, 'failed', failedTtl },
  { brokenKey, 'failed', failedTtl } }
for _, w in ipairs(windows) do
  local ids = redis.call('ZRANGEBYSCORE', w[1], '-inf', now - w[3], 'LIMIT', 0, limit)
  retire(w[1], ids, w[2])
  note(#ids)
end
-- The cap: the oldest dead letters (and broken jobs) past deadLetterMax go.
for _, index in ipairs({ deadKey, brokenKey }) do
  local over = redis.call('ZCARD', index) - deadMax
  if over > 0 then
    local ids = redis.call('ZRANGE', index, 0, math.min(over, limit) - 1)
    retire(index, ids, 'failed')
    note(#ids)
  end
end
return most
