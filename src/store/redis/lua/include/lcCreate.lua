--- @include "lcState"
--- @include "lcBatch"
--- @include "lcFlow"
--- @include "redisCall"
-- A new job (ENQUEUE, the machine's initial `queued`): its record from the base fields
-- (include/lcBare.lua: m, v, in, st 'queued', qs = `score`, ma, ca, in this order: `st` early in
-- the hash, where every read finds it soonest), then `args` (nil, or a flat field/value list of
-- the others), listed in `queued` at `score` (through lcEnterQueued: `ck` its concurrency key,
-- nil: none), or in `delayed` until `runAt`. `quiet`: a minimal record (`rm`): no stream entry.
-- `fresh`: `score` as a number, made from a new seq (the job may go to THE READY LIST,
-- include/lcReady.lua). `v` and `ma`: the job's version and max attempts as text (as sent).
-- THE DEFAULTS LEFT OUT (data format 4, docs/data-format.md): `v` and `ma` are left out when both
-- hold the defaults, DEFAULT_V and DEFAULT_MA (recordSchema.ts BASE_DEFAULTS), which every reader
-- takes for an absent one; else both are written. The two fields were 11 B of a queued no-op
-- job's 75 B listpack, which took it into jemalloc's 80 B class; without them it is 64 B
-- (bench/probes/queuedMemory.ts). Both or neither: `ma` there says `v` is there too, so the plain
-- done reads one field more to count them (lcDonePlain.lua; reading both cost each plain job ~4%
-- more Redis instructions under callgrind, commitOps.ts).
-- The base fields go straight to redis.call, not through a table and unpack (~3k instructions a
-- job under callgrind).
-- lcCreateRecord writes the record alone (enqueue-5.lua's plain batch indexes and tells itself).
local function lcCreateRecord(jk, m, v, input, score, ma, ca, args)
  if v == DEFAULT_V and ma == DEFAULT_MA then
    if args then
      redisCall('HSET', jk, 'm', m, 'in', input, 'st', 'queued', 'qs', score, 'ca', ca, unpack(args))
    else
      redisCall('HSET', jk, 'm', m, 'in', input, 'st', 'queued', 'qs', score, 'ca', ca)
    end
  elseif args then
    redisCall('HSET', jk, 'm', m, 'v', v, 'in', input, 'st', 'queued', 'qs', score, 'ma', ma, 'ca', ca, unpack(args))
  else
    redisCall('HSET', jk, 'm', m, 'v', v, 'in', input, 'st', 'queued', 'qs', score, 'ma', ma, 'ca', ca)
  end
end
local function lcCreate(id, jk, m, v, input, score, ma, ca, args, runAt, ck, quiet, fresh)
  lcCreateRecord(jk, m, v, input, score, ma, ca, args)
  if runAt then
    lcIndex('delayed', runAt, id)
  else
    lcEnterQueued(id, score, ck, fresh)
  end
  LC.wake = true
  if not quiet then lcTell(id, 'enqueued', 'queued') end
end
