-- JOB_FIELDS (the record fields a reader decodes, in decodeJob.ts's order) and RESULT_TTL_MS (how
-- long a pushed result waits for its watcher to pop it) are generated from TypeScript
-- (luaConstants.ts).

-- THE WATCH: a record's `wt` field lists the watchers (ResultWaiter instances, by id, joined by
-- ',') that wait for the job to finish; watch-1.lua adds them, atomically with the read that
-- saw the job unfinished. Every script that ends a job (done, failed, cancelled) MUST call this
-- after its writes: it pushes the finished record to each watcher's result list, so a waiter
-- learns the outcome and gets the record in the same reply (no stream to follow, no read
-- after). `wt`: the field as read, or nil to read it here.
local function pushResult(kp, jk, id, wt)
  if wt == nil then wt = redis.call('HGET', jk, 'wt') end
  if not wt then return end
  redis.call('HDEL', jk, 'wt')
  local v = redis.call('HMGET', jk, unpack(JOB_FIELDS))
  local payload = cjson.encode({ id, v })
  for watcher in string.gmatch(wt, '[^,]+') do
    local rk = kp .. 'result:' .. watcher
    redis.call('RPUSH', rk, payload)
    redis.call('PEXPIRE', rk, RESULT_TTL_MS)
  end
end
