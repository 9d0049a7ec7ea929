--- @include "lcState"
--- @include "numText"
-- QUEUES OVER TIME (src/store/queueSeries.ts, its TypeScript twin tallyFields): each job that
-- ends adds one to its status's count (d, f, c) in its queue's tally of this minute, a hash
-- `series:<minute>` (minute = Redis ms / 60,000), and a claimed job that ends done or failed one
-- to its wait (w<i>: created to its last claim, ct - ca) and run (r<i>: that claim to now)
-- buckets. The adds of one call are gathered here and written by lcTallyFlush (from lcFlush):
-- one HINCRBY per distinct field and one PEXPIRE per call, whatever the number of jobs; a plain
-- done reads `ct` and `ca` in the HMGET it makes anyway (lcDonePlain).
-- COST PER JOB: a job's buckets depend only on its `ct` and `ca` as read (the call's time is one),
-- and the jobs of a call share few of them (a batch was created by one enqueue and claimed by one
-- claim, each stamping one time), so a job only counts its (ct, ca) pair; the numbers are parsed
-- and bucketed once per distinct pair, at the flush. (Per job before, under callgrind: two
-- tonumber, two buckets and three adds, ~10k instructions of a plain done's ~95k.)
local lcTallyN = { d = 0, f = 0, c = 0 }
-- ct -> ca -> how many jobs; lcTallyCts: the ct seen, in order.
local lcTallyPairs, lcTallyCts = {}, {}

-- The bucket's position (from 1) in SERIES_WAIT_FIELDS / SERIES_RUN_FIELDS: ceil(3 log10 ms)
-- + 1 (queueSeries.ts, seriesBucket: the bounds are 10^(k/3) ms). The field names are literals,
-- not 'w' .. i: a number's concatenation goes through sprintf.
local log10, ceil = math.log10, math.ceil
local function lcTallyBucket(ms)
  if ms <= 1 then return 1 end
  local i = ceil(3 * log10(ms)) + 1
  if i > SERIES_BUCKETS then return SERIES_BUCKETS + 1 end
  return i
end

-- A job's ending: `to` its final status, `ca` and `ct` as read from its record (nil when absent:
-- a job cancelled before any claim has no `ct`).
local function lcTally(to, ca, ct)
  if to == 'done' then lcTallyN.d = lcTallyN.d + 1
  elseif to == 'failed' then lcTallyN.f = lcTallyN.f + 1
  else lcTallyN.c = lcTallyN.c + 1; return end
  if not ca or not ct then return end
  local byCa = lcTallyPairs[ct]
  if not byCa then byCa = {}; lcTallyPairs[ct] = byCa; lcTallyCts[#lcTallyCts + 1] = ct end
  byCa[ca] = (byCa[ca] or 0) + 1
end

-- `k` jobs ending done with this `ca` and `ct` (THE HELD DONES, lcBatch.lua: counted by pair,
-- where a call per job cost ~1.3k instructions under callgrind).
local function lcTallyDone(ca, ct, k)
  lcTallyN.d = lcTallyN.d + k
  if not ca or not ct then return end
  local byCa = lcTallyPairs[ct]
  if not byCa then byCa = {}; lcTallyPairs[ct] = byCa; lcTallyCts[#lcTallyCts + 1] = ct end
  byCa[ca] = (byCa[ca] or 0) + k
end

local function lcTallyFlush()
  local n = lcTallyN
  if n.d + n.f + n.c == 0 then return end
  local adds, fields = {}, {}
  local function add(field, k)
    local had = adds[field]
    if not had then fields[#fields + 1] = field; had = 0 end
    adds[field] = had + k
  end
  for _, f in ipairs({ 'd', 'f', 'c' }) do
    if n[f] > 0 then add(f, n[f]) end
  end
  for _, ct in ipairs(lcTallyCts) do
    local ctn = tonumber(ct)
    if ctn then
      local run = SERIES_RUN_FIELDS[lcTallyBucket(LC.now - ctn)]
      for ca, k in pairs(lcTallyPairs[ct]) do
        local can = tonumber(ca)
        if can then
          add(SERIES_WAIT_FIELDS[lcTallyBucket(ctn - can)], k)
          add(run, k)
        end
      end
    end
  end
  local key = LC.kp .. 'series:' .. math.floor(LC.now / 60000)
  for _, f in ipairs(fields) do redis.call('HINCRBY', key, f, numText(adds[f])) end
  redis.call('PEXPIRE', key, numText(SERIES_KEEP_MS))
  lcTallyN = { d = 0, f = 0, c = 0 }
  lcTallyPairs, lcTallyCts = {}, {}
end
