--- @include "lcState"
--- @include "lcBatch"
--- @include "lcFlow"
-- A new job (ENQUEUE, the machine's initial `queued`): its record from `fields` (flat
-- field/value list that starts with the base fields, include/lcBare.lua: m, v, in, st 'queued',
-- qs, ma, ca, in this order: `st` early in the hash, where every read finds it soonest), listed
-- in `queued` at `score` (through lcEnterQueued: `ck` its concurrency key, nil: none), or in
-- `delayed` until `runAt`. `quiet`: a minimal record (`rm`): no stream entry.
local function lcCreate(id, jk, fields, score, runAt, ck, quiet)
  if fields[1] ~= 'm' or fields[3] ~= 'v' or fields[5] ~= 'in' or fields[7] ~= 'st' or fields[8] ~= 'queued'
    or fields[9] ~= 'qs' or fields[11] ~= 'ma' or fields[13] ~= 'ca' then
    error('lcCreate: fields must start with m, v, in, st queued, qs, ma, ca')
  end
  redis.call('HSET', jk, unpack(fields))
  if runAt then
    lcIndex('delayed', runAt, id)
  else
    lcEnterQueued(id, score, ck)
  end
  LC.wake = true
  if not quiet then lcTell(id, 'enqueued', 'queued') end
end
