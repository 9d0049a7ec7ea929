-- Moves due entries of `delayed` (backoff retries, delayed enqueues, parked jobs whose wake
-- time came) into `queued`, behind the jobs already waiting in their priority band.
-- Needs: kp, now, KEYS for queued (kQueued), delayed (kDelayed), meta (kMeta), waiting (kWaiting).
local function promoteDue(kp, now, kQueued, kDelayed, kMeta, kWaiting)
  local due = redis.call('ZRANGEBYSCORE', kDelayed, '-inf', now, 'LIMIT', 0, 1000)
  if #due == 0 then return 0 end
  local seq = redis.call('HINCRBY', kMeta, 'seq', #due) - #due
  for i, id in ipairs(due) do
    local jk = kp .. 'job:' .. id
    local r = redis.call('HMGET', jk, 'pr', 'st')
    if r[2] then
      -- No `pr`: the normal band (see enqueue-5.lua).
      local score = (tonumber(r[1]) or 2) * BAND + seq + i
      if r[2] == 'waiting' then redis.call('ZREM', kWaiting, id) end
      redis.call('HSET', jk, 'st', 'queued', 'qs', score)
      redis.call('HDEL', jk, 'ra')
      redis.call('ZADD', kQueued, score, id)
    end
  end
  redis.call('ZREM', kDelayed, unpack(due))
  return #due
end
