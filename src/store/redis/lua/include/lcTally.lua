--- @include "lcState"
-- QUEUES OVER TIME (src/store/queueSeries.ts, its TypeScript twin tallyFields): each job that
-- ends adds one to its status's count (d, f, c) in its queue's tally of this minute, a hash
-- `series:<minute>` (minute = Redis ms / 60,000), and a claimed job that ends done or failed one
-- to its wait (w<i>: created to its last claim, ct - ca) and run (r<i>: that claim to now)
-- buckets. The adds of one call are gathered here and written by lcTallyFlush (from lcFlush):
-- one HINCRBY per distinct field and one PEXPIRE per call, whatever the number of jobs; a plain
-- done reads `ct` and `ca` in the HMGET it makes anyway (lcDonePlain).
local lcTallied, lcTalliedKeys = {}, {}

-- The bucket's position (from 1) in SERIES_WAIT_FIELDS / SERIES_RUN_FIELDS: ceil(3 log10 ms)
-- + 1 (queueSeries.ts, seriesBucket: the bounds are 10^(k/3) ms). The field names are literals,
-- not 'w' .. i: a number's concatenation goes through sprintf. COST, per plain done under
-- callgrind: the two more fields of its HMGET ~6.5k instructions, the two tonumber ~4k, the adds
-- ~4k, the two buckets ~2k (a search over the bounds took ~10k).
local log10, ceil = math.log10, math.ceil
local function lcTallyBucket(ms)
  if ms <= 1 then return 1 end
  local i = ceil(3 * log10(ms)) + 1
  if i > SERIES_BUCKETS then return SERIES_BUCKETS + 1 end
  return i
end

local function lcTallyAdd(field)
  local n = lcTallied[field]
  if not n then lcTalliedKeys[#lcTalliedKeys + 1] = field; n = 0 end
  lcTallied[field] = n + 1
end

-- A job's ending: `to` its final status, `ca` and `ct` as read from its record (nil when absent:
-- a job cancelled before any claim has no `ct`).
local function lcTally(to, ca, ct)
  if to == 'done' then lcTallyAdd('d') elseif to == 'failed' then lcTallyAdd('f') else lcTallyAdd('c'); return end
  ca, ct = tonumber(ca), tonumber(ct)
  if not ca or not ct then return end
  lcTallyAdd(SERIES_WAIT_FIELDS[lcTallyBucket(ct - ca)])
  lcTallyAdd(SERIES_RUN_FIELDS[lcTallyBucket(LC.now - ct)])
end

local function lcTallyFlush()
  if #lcTalliedKeys == 0 then return end
  local key = LC.kp .. 'series:' .. math.floor(LC.now / 60000)
  for _, f in ipairs(lcTalliedKeys) do redis.call('HINCRBY', key, f, lcTallied[f]) end
  redis.call('PEXPIRE', key, SERIES_KEEP_MS)
  lcTallied, lcTalliedKeys = {}, {}
end
