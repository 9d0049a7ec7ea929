--[[ drainIngress: moves the oldest entries of a queue's ingress list (what foreign producers
LPUSH, docs/ingress.md) into jobs, atomically: each entry is popped in the same call that makes
its job (or sets it aside as broken), so an entry is never lost, nor made into a job twice, by a
supervisor that dies mid-move. The caller read the entries (LRANGE) and decided each one
(ingressOps.ts); this call checks they are still the oldest, by SHA-1, before it writes.
KEYS: 1 ingress list, 2 queued, 3 delayed, 4 meta, 5 events, 6 marker, 7 broken
ARGV: 1 key prefix, 2 events max length, 3 entry count n, 4 most bytes of raw text kept for a
      broken entry, then 11 per entry, oldest first:
  sha1 of the entry's bytes, kind, id, then
  kind 'J' (a job under a new id) or 'K' (a job under the producer's id): machine, version,
  input JSON, band, delay ms, max attempts, options JSON|'', then for 'K' a spare new id, else ''
  kind 'B' (broken, under a new id): reason, then 7 x ''
A 'K' entry whose id names an existing job of the SAME machine is consumed and makes nothing (a
producer's safe re-push, docs/ingress.md). One whose id names a job of ANOTHER machine is set
aside as broken under its spare id, reason ID_CONFLICT naming the job: its producer must learn
that no job was made. The existing job is read here, not by the caller, so that a job made
earlier in this very batch, or by another supervisor a moment ago, is seen.
Returns { made, broken, existing } or { -1 } when the entries are no longer the oldest n (another
supervisor drained them) or an id meant to be new exists (this call was sent twice): nothing is
written then, and the caller reads again.
Errors: BAD_INGRESS <entry index> <why> when an argument is malformed; nothing is written then.

The record a job gets is the one enqueue-5.lua writes for the same job (no parent, no
idempotency key); test/ingress/ingress.test.ts compares the two.
]]
--- @include "nowMs"
--- @include "lcState"
--- @include "lcCreate"
--- @include "lcSetBroken"
--- @include "lcBatch"
-- The keys this script names (the lifecycle derives the others from the prefix, ARGV[1]).
local ingressKey, metaKey = KEYS[1], KEYS[4]
local kp, maxLen, n, rawCap = ARGV[1], ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4])
local PER = 11
if not n or n < 1 or n % 1 ~= 0 or not rawCap or #ARGV ~= 4 + n * PER then
  return redis.error_reply('BAD_INGRESS 0 bad count')
end
-- BANDS (a band by its text) and BAND are generated from TypeScript (luaConstants.ts).
-- NO HALF-APPLIED CALL: everything is checked before the first write.
local tail = redis.call('LRANGE', ingressKey, -n, -1)
if #tail < n then return { -1 } end
for i = 1, n do
  local b = 5 + (i - 1) * PER
  -- The list's right end holds the oldest entry: entry i is tail[n - i + 1].
  if redis.sha1hex(tail[n - i + 1]) ~= ARGV[b] then return { -1 } end
  local kind, id = ARGV[b + 1], ARGV[b + 2]
  if id == '' then return redis.error_reply('BAD_INGRESS ' .. i .. ' id missing') end
  if kind == 'J' or kind == 'K' then
    if ARGV[b + 3] == '' then return redis.error_reply('BAD_INGRESS ' .. i .. ' machine missing') end
    if not BANDS[ARGV[b + 6]] then return redis.error_reply('BAD_INGRESS ' .. i .. ' band') end
    local delay, ma = tonumber(ARGV[b + 7]), tonumber(ARGV[b + 8])
    if not delay or delay < 0 or delay ~= delay or delay == math.huge then
      return redis.error_reply('BAD_INGRESS ' .. i .. ' delay')
    end
    if not ma or ma < 1 or ma % 1 ~= 0 then return redis.error_reply('BAD_INGRESS ' .. i .. ' max attempts') end
    if kind == 'K' then
      local spare = ARGV[b + 10]
      if spare == '' or spare == id then return redis.error_reply('BAD_INGRESS ' .. i .. ' spare id') end
      if redis.call('EXISTS', kp .. 'job:' .. spare) == 1 then return { -1 } end
    end
  elseif kind ~= 'B' then
    return redis.error_reply('BAD_INGRESS ' .. i .. ' kind')
  end
  -- A new id that exists already: this very call ran before (a resend after a lost reply).
  if kind ~= 'K' and redis.call('EXISTS', kp .. 'job:' .. id) == 1 then return { -1 } end
end

redis.call('LTRIM', ingressKey, 0, -(n + 1))
local now = nowMs()
LC.kp, LC.maxLen, LC.now = kp, maxLen, now
local seq = redis.call('HINCRBY', metaKey, 'seq', n) - n
local made, broken, existing = 0, 0, 0

-- Entry i set aside under `bid`. The raw text stays with the reason (BrokenEntry.raw);
-- purgeDead-3 expires the hash.
local function setAside(i, bid, why)
  local raw = tail[n - i + 1]
  if #raw > rawCap then raw = string.sub(raw, 1, rawCap) end
  redis.call('HSET', kp .. 'job:' .. bid, 'raw', raw)
  lcSetBroken(bid, why)
  broken = broken + 1
end

for i = 1, n do
  local b = 5 + (i - 1) * PER
  local kind, id = ARGV[b + 1], ARGV[b + 2]
  local jk = kp .. 'job:' .. id
  local owner = kind == 'K' and redis.call('EXISTS', jk) == 1 and (redis.call('HGET', jk, 'm') or '')
  if kind == 'B' then
    setAside(i, id, ARGV[b + 3])
  elseif owner and owner == ARGV[b + 3] then
    existing = existing + 1
  elseif owner then
    setAside(i, ARGV[b + 10], "ID_CONFLICT: id '" .. id .. "' names an existing job ('" .. id ..
      "') of machine '" .. owner .. "', not '" .. ARGV[b + 3] .. "': no job was made for this entry")
  else
    -- As enqueue-5.lua writes a job due now or delayed (see there for the fields left out).
    local band = BANDS[ARGV[b + 6]]
    local score = band * BAND + seq + i
    local delay = tonumber(ARGV[b + 7])
    local args = { 'm', ARGV[b + 3], 'v', ARGV[b + 4], 'in', ARGV[b + 5], 'st', 'queued',
      'qs', score, 'ma', ARGV[b + 8], 'ca', now }
    if band ~= 2 then args[#args + 1] = 'pr'; args[#args + 1] = band end
    if delay > 0 then
      args[#args + 1] = 'ra'; args[#args + 1] = now + delay
      args[#args + 1] = 'ls'; args[#args + 1] = 1
      args[#args + 1] = 'l1'; args[#args + 1] = now .. ' {"type":"enqueued","delayMs":' .. ARGV[b + 7] .. '}'
    end
    if ARGV[b + 9] ~= '' then args[#args + 1] = 'opt'; args[#args + 1] = ARGV[b + 9] end
    lcCreate(id, jk, args, score, delay > 0 and now + delay or nil)
    made = made + 1
  end
end
lcFlush()
return { made, broken, existing }
