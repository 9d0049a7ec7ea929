-- Shared by every script (inlined by the loader at `--@include common`).
-- Time is Redis's clock, never a worker's: leases, run-at times and log stamps all come from here.
local function nowMs()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

-- The audit log lives in the job hash as fields l1, l2, ... with the count in `ls`, so logging
-- rides on the HSET a write makes anyway instead of costing a command of its own. At most
-- LOG_CAP entries are kept: the oldest fall out.
-- An entry is stored as "<at> <type>" when it is only a type (most are: enqueued, claimed,
-- done), else "<at> <JSON object without at>": 22 bytes instead of 39 for the common ones,
-- which keeps a finished job's hash small. RedisStore.getLog turns both back into objects.
--
-- IMPLICIT LOG: while a job's log is exactly the standard start, no log field is written and
-- `ls` is absent: "enqueued" at `ca`, then "claimed" at `ct` (claim of attempt 1), then "done"
-- at `fa` (when `st` is done). enqueue-5 and commit-12 (claim, done) skip the log for exactly
-- these entries; RedisStore.getLog rebuilds them. Any other entry goes through addLog, which
-- first writes the implicit entries out (l1, l2) so the order and the stamps stay the same.
local LOG_CAP = 1000

-- Entries stamped in this call, by their text: most jobs of a batch log the same entries
-- ('{"type":"done"}', ...), each is built once per call.
local stamped = {}

local function logText(now, e)
  local t = string.match(e, '^{"type":"([%w%-]+)"}$')
  return now .. ' ' .. (t or e)
end

-- Appends entries (JSON objects without "at") to the HSET argument list `args`; returns the
-- new ls. `ls` is the stored field as read (nil/false when the log is still implicit).
local function addLog(args, jobKey, ls, now, entries)
  ls = tonumber(ls)
  if not ls then
    ls = 0
    local t = redis.call('HMGET', jobKey, 'ca', 'ct')
    if t[1] then
      ls = 1
      args[#args + 1] = 'l1'; args[#args + 1] = t[1] .. ' enqueued'
    end
    if t[2] then
      ls = ls + 1
      args[#args + 1] = 'l' .. ls; args[#args + 1] = t[2] .. ' claimed'
    end
  end
  for _, e in ipairs(entries) do
    ls = ls + 1
    args[#args + 1] = 'l' .. ls
    local s = stamped[e]
    if not s then
      s = logText(now, e)
      stamped[e] = s
    end
    args[#args + 1] = s
    if ls > LOG_CAP then redis.call('HDEL', jobKey, 'l' .. (ls - LOG_CAP)) end
  end
  args[#args + 1] = 'ls'
  args[#args + 1] = ls
  return ls
end

-- The worker holding a lease: a token is "<workerId>:<n>" (see the claim in commit-12.lua), so
-- the record needs no worker field of its own.
local function tokenWorker(tk)
  if not tk or tk == '' then return nil end
  return string.match(tk, '^(.*):%d+$')
end

-- The record fields a reader decodes, in the order of JOB_FIELDS in decodeJob.ts (a test keeps
-- the two lists equal).
local JOB_FIELDS = { 'm', 'v', 'st', 's', 'sn', 'in', 'o', 'e', 'a', 'ma', 'lr', 'pr', 'p', 'par',
  'ra', 'ca', 'ua', 'fa', 'cx', 'ct' }
-- How long a pushed result waits for its watcher to pop it (one that gave up never will).
local RESULT_TTL_MS = 60000

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

-- One entry on the queue's capped event stream, which dashboards and waiters follow.
local function emit(eventsKey, maxLen, now, id, kind, status)
  redis.call('XADD', eventsKey, 'MAXLEN', '~', maxLen, '*', 'j', id, 't', kind, 's', status, 'at', now)
end

-- One COMBINED entry for many jobs that made the same transition in one script call
-- (claimed, done, enqueued): field `js` holds their ids joined by ','; no `j` field.
-- RedisStore.readEvents expands it into one QueueEvent per job (same cursor, in order), so
-- every job's transition stays visible on the stream at a fraction of the XADDs.
local function emitMany(eventsKey, maxLen, now, ids, kind, status)
  if #ids == 0 then return end
  if #ids == 1 then return emit(eventsKey, maxLen, now, ids[1], kind, status) end
  redis.call('XADD', eventsKey, 'MAXLEN', '~', maxLen, '*', 'js', table.concat(ids, ','), 't', kind, 's', status, 'at', now)
end

-- Queue scores: priority band in the high bits, FIFO sequence below. 2^44 sequences per band,
-- and 4 bands stay under 2^53, so a double holds the score exactly.
local BAND = 17592186044416

local function splitEntries(s)
  local out = {}
  if s == nil or s == '' then return out end
  if not string.find(s, '\n', 1, true) then out[1] = s; return out end
  for e in string.gmatch(s, '[^\n]+') do out[#out + 1] = e end
  return out
end
