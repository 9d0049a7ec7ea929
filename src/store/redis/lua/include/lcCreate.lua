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
-- THE DEFAULTS LEFT OUT (data format 4, docs/data-format.md): `v` and `ma` are written only when
-- they are not DEFAULT_V and DEFAULT_MA (recordSchema.ts BASE_DEFAULTS), which every reader takes
-- for an absent one: the two fields were 11 B of a queued no-op job's 75 B listpack, which took
-- it into jemalloc's 80 B class; without them it is 64 B (bench/probes/queuedMemory.ts).
-- The base fields go straight to redis.call, not through a table and unpack (~3k instructions a
-- job under callgrind): a call for each of v and ma present or not.
-- lcCreateRecord writes the record alone (enqueue-5.lua's plain batch indexes and tells itself).
local function lcCreateRecord(jk, m, v, input, score, ma, ca, args)
  if v == DEFAULT_V then
    if ma == DEFAULT_MA then
      if args then
        redisCall('HSET', jk, 'm', m, 'in', input, 'st', 'queued', 'qs', score, 'ca', ca, unpack(args))
      else
        redisCall('HSET', jk, 'm', m, 'in', input, 'st', 'queued', 'qs', score, 'ca', ca)
      end
    elseif args then
      redisCall('HSET', jk, 'm', m, 'in', input, 'st', 'queued', 'qs', score, 'ma', ma, 'ca', ca, unpack(args))
    else
      redisCall('HSET', jk, 'm', m, 'in', input, 'st', 'queued', 'qs', score, 'ma', ma, 'ca', ca)
    end
  elseif ma == DEFAULT_MA then
    if args then
      redisCall('HSET', jk, 'm', m, 'v', v, 'in', input, 'st', 'queued', 'qs', score, 'ca', ca, unpack(args))
    else
      redisCall('HSET', jk, 'm', m, 'v', v, 'in', input, 'st', 'queued', 'qs', score, 'ca', ca)
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
