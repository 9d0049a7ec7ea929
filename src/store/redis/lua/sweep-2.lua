--[[ sweep: retention of finished records. Deletes done and cancelled records that finished
before the retention window, oldest first, at most ARGV[3] per index per call, with their
index entries. Called after each reap that held the lock (RedisStore.reap), again while a call
came back full.
KEYS: 1 done, 2 cancelled
ARGV: 1 key prefix, 2 finished TTL ms (the window), 3 limit per index
Returns the larger of the two counts removed (== limit: there may be more).

Why not a TTL per record: an expires entry (~37 B) and a PEXPIRE per finished job; the indexes
hold the finish times already. A record is deleted only while its status is still that of the
index (a record is never re-created under an id whose entry is still here, but a stray entry
must not delete a live job). Failed records are dead letters: they stay (purgeDead-3.lua gives
purged ones a TTL); reap-7.lua trims their index. Fan-out records and children indexes keep
their TTLs (see expireFans and notifyParent in include/fanin.lua).
]]
--@include common
local kp, ttl, limit = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
local cutoff = nowMs() - ttl
local most = 0
for k, status in ipairs({ 'done', 'cancelled' }) do
  local ids = redis.call('ZRANGEBYSCORE', KEYS[k], '-inf', cutoff, 'LIMIT', 0, limit)
  if #ids > 0 then
    local dead = {}
    for _, id in ipairs(ids) do
      local jk = kp .. 'job:' .. id
      local st = redis.call('HGET', jk, 'st')
      if st == status then dead[#dead + 1] = jk end
    end
    if #dead > 0 then redis.call('DEL', unpack(dead)) end
    redis.call('ZREM', KEYS[k], unpack(ids))
    if #ids > most then most = #ids end
  end
end
return most
