--[[ drainIngress: moves the oldest entries of a queue's ingress list (what foreign producers
LPUSH, docs/ingress.md) into jobs, atomically: each entry is popped in the same call that makes
its job (or sets it aside as broken), so an entry is never lost, nor made into a job twice, by a
supervisor that dies mid-move. The caller read the entries (LRANGE) and decided each one
(ingressOps.ts); this call checks they are still the oldest, by SHA-1, before it writes.
KEYS: 1 ingress list, 2 queued, 3 delayed, 4 meta, 5 events, 6 marker, 7 broken
ARGV: 1 key prefix, 2 events max length, 3 the entries, oldest first: ONE JSON array of named
      records (ingressOps.ts), each the caller's IngressDecision (src/store/types.ts) with
      `sha`, the SHA-1 of the entry's bytes:
        { sha, job = { id, machine, version, input, band, delayMs, maxAttempts, options?,
          dedupe? = { key, mode, ttlMs?, maxDelayMs?, keepLast?, recTtlMs }, concurrencyKey? } }
          a job under a new id (under a dedupe key: include/dedupe.lua, recTtlMs the store's
          idempotency TTL);
        { sha, job = ..., ownId = true, spareId } a job under the producer's id (below);
        { sha, id, reason } set aside as broken under the new id `id`,
      4 most bytes of raw text kept for a broken entry
An ownId entry whose id names an existing job of the SAME machine is consumed and makes nothing (a
producer's safe re-push, docs/ingress.md). One whose id names a job of ANOTHER machine is set
aside as broken under its spare id, reason ID_CONFLICT naming the job: its producer must learn
that no job was made. The existing job is read here, not by the caller, so that a job made
earlier in this very batch, or by another supervisor a moment ago, is seen.
An entry whose dedupe key keeps an existing job makes nothing and counts as existing.
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
--- @include "dedupe"
-- The keys this script names (the lifecycle derives the others from the prefix, ARGV[1]).
local ingressKey, metaKey = KEYS[1], KEYS[4]
local kp, maxLen, rawCap = ARGV[1], ARGV[2], tonumber(ARGV[4])
local decoded, entries = pcall(cjson.decode, ARGV[3] or '')
if not decoded or type(entries) ~= 'table' or #entries < 1 or not rawCap or #ARGV ~= 4 then
  return redis.error_reply('BAD_INGRESS 0 bad count')
end
local n = #entries
local function bad(i, why) return redis.error_reply('BAD_INGRESS ' .. i .. ' ' .. why) end
local function isText(v) return type(v) == 'string' end
-- BANDS (a band by its text) and BAND are generated from TypeScript (luaConstants.ts).
-- NO HALF-APPLIED CALL: everything is checked before the first write.
local tail = redis.call('LRANGE', ingressKey, -n, -1)
if #tail < n then return { -1 } end
for i = 1, n do
  local e = entries[i]
  if type(e) ~= 'table' then return bad(i, 'not an entry record') end
  -- The list's right end holds the oldest entry: entry i is tail[n - i + 1].
  if redis.sha1hex(tail[n - i + 1]) ~= e.sha then return { -1 } end
  local j = e.job
  if e.reason ~= nil then
    if not isText(e.reason) then return bad(i, 'reason') end
    if not isText(e.id) or e.id == '' then return bad(i, 'id missing') end
  elseif type(j) == 'table' then
    if not isText(j.id) or j.id == '' then return bad(i, 'id missing') end
    if not isText(j.machine) or j.machine == '' then return bad(i, 'machine missing') end
    if type(j.version) ~= 'number' or not isText(j.input) then return bad(i, 'version or input') end
    if type(j.band) ~= 'number' or not BANDS[tostring(j.band)] then return bad(i, 'band') end
    local delay, ma = j.delayMs, j.maxAttempts
    if type(delay) ~= 'number' or delay < 0 or delay ~= delay or delay == math.huge then return bad(i, 'delay') end
    if type(ma) ~= 'number' or ma < 1 or ma % 1 ~= 0 then return bad(i, 'max attempts') end
    if j.options ~= nil and not isText(j.options) then return bad(i, 'options') end
    local dd = j.dedupe
    if dd ~= nil then
      if type(dd) ~= 'table' or type(dd.recTtlMs) ~= 'number' then return bad(i, 'dedupe') end
      local d, why = dedupeOf(kp, dd.key, dd.mode, dd.ttlMs, dd.maxDelayMs, dd.keepLast, dd.recTtlMs)
      if not d then return bad(i, 'dedupe ' .. why) end
      e.dd = d
    end
    if e.ownId == true then
      local spare = e.spareId
      if not isText(spare) or spare == '' or spare == j.id then return bad(i, 'spare id') end
      if redis.call('EXISTS', kp .. 'job:' .. spare) == 1 then return { -1 } end
    elseif e.ownId ~= nil and e.ownId ~= false then
      return bad(i, 'ownId')
    end
  else
    return bad(i, 'neither a job nor a reason')
  end
  -- A new id that exists already: this very call ran before (a resend after a lost reply).
  local newId = e.reason ~= nil and e.id or (e.ownId ~= true and j.id)
  if newId and redis.call('EXISTS', kp .. 'job:' .. newId) == 1 then return { -1 } end
end

redis.call('LTRIM', ingressKey, 0, -(n + 1))
local now = nowMs()
LC.kp, LC.maxLen, LC.now = kp, maxLen, now
local seq = redis.call('HINCRBY', metaKey, 'seq', n) - n
local made, broken, existing = 0, 0, 0
-- The stored defaults of a version and max attempts, as the entries' JSON gives them (numbers).
local defaultV, defaultMa = tonumber(DEFAULT_V), tonumber(DEFAULT_MA)

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
  local e = entries[i]
  local j = e.job
  if e.reason ~= nil then
    setAside(i, e.id, e.reason)
  else
    local id = j.id
    local jk = kp .. 'job:' .. id
    local owner = e.ownId == true and redis.call('EXISTS', jk) == 1 and (redis.call('HGET', jk, 'm') or '')
    if owner and owner == j.machine then
      existing = existing + 1
    elseif owner then
      setAside(i, e.spareId, "ID_CONFLICT: id '" .. id .. "' names an existing job ('" .. id ..
        "') of machine '" .. owner .. "', not '" .. j.machine .. "': no job was made for this entry")
    else
      -- As enqueue-5.lua writes a job due now or delayed (see there for the fields left out).
      local band = BANDS[tostring(j.band)]
      local score = band * BAND + seq + i
      local delay, kept = j.delayMs, nil
      if e.dd then kept, delay = dedupeEnqueue(e.dd, id, j.input, delay) end
      if kept then
        existing = existing + 1
      else
        -- The fields past the base ones (lcCreate writes those).
        local args = {}
        if band ~= 2 then args[#args + 1] = 'pr'; args[#args + 1] = band end
        if delay > 0 then args[#args + 1] = 'ra'; args[#args + 1] = now + delay end
        if not dedupeFields(args, e.dd, now, delay) and delay > 0 then
          args[#args + 1] = 'ls'; args[#args + 1] = 1
          args[#args + 1] = 'l1'; args[#args + 1] = now .. ' {"type":"enqueued","delayMs":' .. tostring(delay) .. '}'
        end
        if j.options ~= nil and j.options ~= '' then args[#args + 1] = 'opt'; args[#args + 1] = j.options end
        local ck = nil
        if type(j.concurrencyKey) == 'string' and j.concurrencyKey ~= '' then
          ck = j.concurrencyKey
          args[#args + 1] = 'ck'; args[#args + 1] = ck
          -- The queue now has a job with a key (include/lcState.lua's LC.keyed).
          redis.call('HSET', kp .. 'flow', 'keyed', '1')
        end
        -- Version and max attempts as numbers (JSON): the defaults as lcCreate knows them, as text
        -- (THE DEFAULTS LEFT OUT, include/lcCreate.lua).
        local v, ma = j.version, j.maxAttempts
        if v == defaultV then v = DEFAULT_V end
        if ma == defaultMa then ma = DEFAULT_MA end
        lcCreate(id, jk, j.machine, v, j.input, score, ma, now, args[1] and args or nil,
          delay > 0 and now + delay or nil, ck, nil, score)
        made = made + 1
      end
    end
  end
end
lcFlush()
return { made, broken, existing }
