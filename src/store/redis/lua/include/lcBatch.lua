--- @include "lcState"
--- @include "emitMany"
--- @include "lcTally"
-- BATCHED INDEX WRITES: ZREMs and ZADDs are gathered per key and sent by lcFlush, removals
-- first, in slices below Lua's unpack limit. Stream entries of this call are grouped by
-- (kind, status): one XADD per group (emitMany), in the order the groups were opened.
-- ORDER: a job that lcMove moves a second time in one call flushes first when its first move
-- wrote indexes, or when its new entry would go to a group opened before its last one; so
-- each job's index writes and stream entries keep their order. (lcCreate and lcClaim move
-- each job once per call and skip the bookkeeping.)
local lcRem, lcAdd, lcRemKeys, lcAddKeys = {}, {}, {}, {}
-- Ids for the back of THE READY LIST (`ready`, include/lcReady.lua), in the order they entered.
local lcReadyIds = {}
local lcTold, lcToldKeys = {}, {}
-- Jobs lcMove moved since the last flush: 2 * (position of their last stream group) + (1 when
-- that move wrote indexes).
local lcMoved = {}
local SLICE = 4000

local function lcRemove(index, id)
  local t = lcRem[index]
  if not t then t = {}; lcRem[index] = t; lcRemKeys[#lcRemKeys + 1] = index end
  t[#t + 1] = id
end

-- Job `id` enters the back of `ready` (only lcEnterQueued, include/lcFlow.lua, decides so).
local function lcReadyPush(id)
  lcReadyIds[#lcReadyIds + 1] = id
end

local function lcIndex(index, score, id)
  local t = lcAdd[index]
  if not t then t = {}; lcAdd[index] = t; lcAddKeys[#lcAddKeys + 1] = index end
  t[#t + 1] = score; t[#t + 1] = id
end

-- ZADD key with a flat {score, member, ...} list of any length.
local function zaddMany(key, flat)
  for s = 1, #flat, SLICE do
    redis.call('ZADD', key, unpack(flat, s, math.min(s + SLICE - 1, #flat)))
  end
end

local function zremMany(key, ids)
  for s = 1, #ids, SLICE do
    redis.call('ZREM', key, unpack(ids, s, math.min(s + SLICE - 1, #ids)))
  end
end

-- `active` AS A SKIP LIST: a small sorted set is a listpack (up to zset-max-listpack-entries, 128
-- by default), where ZADD and ZREM find a member by comparing it with every entry (zzlFind) and
-- ZADD inserts by a scan from the head; at c=100 `active` holds ~100 running jobs, so each job
-- claimed and each finished paid a scan of them (under callgrind ~7k instructions a job for a
-- claim of 100 into an empty set, more into a full one). A skip list finds a member by its hash
-- and inserts in O(log n). Redis makes a listpack a skip list when a member longer than
-- zset-max-listpack-value is added, and never back while the key lives (a restart may load it
-- as a listpack again; the next large claim turns it back): so a claim that would take a
-- listpack `active` past ACTIVE_SKIPLIST_FROM entries adds a pad with its first job and
-- removes it again, in the same atomic call (no reader ever sees it). The pad is 1,024 bytes
-- 0xFF: no job id holds that byte (ids are UTF-8 text), and it is longer than any
-- zset-max-listpack-value a server is likely to set (a longer setting only forgoes the gain).
-- It is made only when used, from 16 bytes 64 times: made at the top of the file it was made by
-- every call of every script with this include (string.rep('\255', 1024) cost ~47k
-- instructions under callgrind, a call).
-- A smaller `active` (a queue run at low concurrency) stays a listpack: smaller, its scans short.
local ACTIVE_SKIPLIST_FROM = 32

-- SAME SCORE, DESCENDING (a listpack `active`): ZADD inserts each member by a scan from the head
-- that stops at the first entry of a higher score, or of the same score and a greater member. A
-- claim adds its jobs under one lease deadline: in ascending order each scanned past all added
-- before it; in descending order each stops at the first entry of its score. The set is the same
-- either way (a sorted set orders a score's members by their bytes; Lua's sort orders them so
-- under the C locale, and any other order only costs the scans). `flat`: {score, member, ...}.
local function sameScoreDescending(flat)
  local n, score = #flat, flat[1]
  if n < 4 then return flat end
  for k = 3, n, 2 do if flat[k] ~= score then return flat end end
  local ids = {}
  for k = 2, n, 2 do ids[k / 2] = flat[k] end
  table.sort(ids)
  local out, m = {}, #ids
  for k = 1, m do out[2 * k - 1] = score; out[2 * k] = ids[m - k + 1] end
  return out
end

-- DONE AS A SKIP LIST: `done` (finish times) is a listpack too while small, and a call that ends
-- many jobs (a batch of 100 dones) paid its scans as a claim did, up to ~17k instructions a job
-- under callgrind for a `done` of ~100 (bench/probes/resumeParts.ts: the first batches of dones
-- on a queue ~85k a job, the next ~66k). So a flush that adds at least DONE_SKIPLIST_ADDS / 2
-- jobs to it takes `active`'s way (addActive): its encoding asked once per such call (~3k
-- instructions, ~30 a job of a batch of 100), which a call ending fewer jobs does not pay.
local DONE_SKIPLIST_ADDS = 32

-- The adds `flat` to `active` or `done` (key), as above.
local function addActive(key, flat)
  local enc = redis.call('OBJECT', 'ENCODING', key)
  if enc == 'skiplist' then return zaddMany(key, flat) end
  local size = enc and redis.call('ZCARD', key) or 0
  if size + #flat / 2 <= ACTIVE_SKIPLIST_FROM then return zaddMany(key, sameScoreDescending(flat)) end
  local pad = string.rep('\255\255\255\255\255\255\255\255\255\255\255\255\255\255\255\255', 64)
  redis.call('ZADD', key, '0', pad, flat[1], flat[2])
  zaddMany(key, flat)
  redis.call('ZREM', key, pad)
end

-- THE HELD DONES (include/lcCompactOp.lua's lean done): running jobs that ended done in this call,
-- their index writes and stream entry not yet recorded. Each is recorded by lcHeldApply as
-- lcRemove('active'), lcIndex('done', now) and lcTell(done, done) would have recorded it, in the
-- order they ended, before anything else is told and before any index write lands (lcTell,
-- lcFlushIndexes): so the indexes, the stream entries and their order are those the same calls
-- per job make, in one pass instead of three calls a job and their table look-ups (with the lean
-- done, a resumed pipeline's done went from ~75k to ~67k instructions a job under callgrind:
-- bench/probes/resumeParts.ts).
-- A held job's lcMoved is 1, and stays so: a move that wrote indexes (odd) is all a second move of
-- it asks (it flushes first); the position of its group is asked only of a move that wrote none.
-- Their tally (lcTally.lua) counts them by (ca, ct) pair: the jobs of a batch share one.
local lcHeld, lcHeldN = {}, 0
local lcHeldCa, lcHeldCt, lcHeldK = false, false, 0

local function lcHeldApply()
  local n = lcHeldN
  lcHeldN = 0
  lcTallyDone(lcHeldCa, lcHeldCt, lcHeldK)
  lcHeldK = 0
  local held = lcHeld
  lcHeld = {}
  local rem = lcRem.active
  if not rem then rem = {}; lcRem.active = rem; lcRemKeys[#lcRemKeys + 1] = 'active' end
  local add = lcAdd.done
  if not add then add = {}; lcAdd.done = add; lcAddKeys[#lcAddKeys + 1] = 'done' end
  local byStatus = lcTold.done
  if not byStatus then byStatus = {}; lcTold.done = byStatus end
  local g = byStatus.done
  if not g then
    g = { kind = 'done', status = 'done', ids = {}, pos = #lcToldKeys + 1 }
    byStatus.done = g
    lcToldKeys[#lcToldKeys + 1] = g
  end
  local ids, nowT = g.ids, lcNowText()
  local r, a, m = #rem, #add, #ids
  for k = 1, n do
    local id = held[k]
    rem[r + k] = id
    add[a + 1] = nowT; add[a + 2] = id; a = a + 2
    ids[m + k] = id
  end
end

-- Job `id`, running, ended done in this call (`ca`, `ct` as read from its record): its tally,
-- index writes and stream entry held (see above).
local function lcDoneHeld(id, ca, ct)
  local n = lcHeldN + 1
  lcHeldN = n
  lcHeld[n] = id
  lcMoved[id] = 1
  if ca == lcHeldCa and ct == lcHeldCt then lcHeldK = lcHeldK + 1; return end
  if lcHeldK > 0 then lcTallyDone(lcHeldCa, lcHeldCt, lcHeldK) end
  lcHeldCa, lcHeldCt, lcHeldK = ca, ct, 1
end

-- The index writes held so far land now (a script about to read or write an index directly).
local function lcFlushIndexes()
  if lcHeldN > 0 then lcHeldApply() end
  for _, index in ipairs(lcRemKeys) do zremMany(LC.kp .. index, lcRem[index]) end
  for _, index in ipairs(lcAddKeys) do
    -- `active` holds the running jobs only: added to a claim at a time. `done` too when many end
    -- at once (DONE AS A SKIP LIST, above).
    local flat = lcAdd[index]
    if index == 'active' or (index == 'done' and #flat >= DONE_SKIPLIST_ADDS) then addActive(LC.kp .. index, flat)
    else zaddMany(LC.kp .. index, flat) end
  end
  local ready = lcReadyIds
  if #ready > 0 then
    for s = 1, #ready, SLICE do
      redis.call('RPUSH', LC.kp .. 'ready', unpack(ready, s, math.min(s + SLICE - 1, #ready)))
    end
    lcReadyIds = {}
  end
  lcRem, lcAdd, lcRemKeys, lcAddKeys = {}, {}, {}, {}
end

local function lcFlush()
  lcFlushIndexes()
  for _, g in ipairs(lcToldKeys) do
    emitMany(LC.kp .. 'events', LC.maxLen, lcNowText(), g.ids, g.kind, g.status)
  end
  lcTold, lcToldKeys, lcMoved = {}, {}, {}
  lcTallyFlush()
  if LC.wake then
    -- Wake one idle supervisor: there is new work, or a due time came earlier.
    redis.call('ZADD', LC.kp .. 'marker', '0', 'w')
    LC.wake = false
  end
end

-- One stream entry for the move (combined with the same moves of other jobs in this call), in
-- a group opened at or after position `minPos`. Returns the group's position (0: no entry).
local function lcTell(id, kind, status, minPos)
  if lcHeldN > 0 then lcHeldApply() end
  if not kind then return 0 end
  local byStatus = lcTold[kind]
  if not byStatus then byStatus = {}; lcTold[kind] = byStatus end
  local g = byStatus[status]
  if g and minPos and g.pos < minPos then
    lcFlush()
    byStatus = {}
    lcTold[kind] = byStatus
    g = nil
  end
  if not g then
    g = { kind = kind, status = status, ids = {}, pos = #lcToldKeys + 1 }
    byStatus[status] = g
    lcToldKeys[#lcToldKeys + 1] = g
  end
  local ids = g.ids
  ids[#ids + 1] = id
  return g.pos
end
