--- @include "lcState"
--- @include "lcBatch"
--- @include "lcFlow"
-- A new job (ENQUEUE, the machine's initial `queued`): its record from `fields` (flat
-- field/value list whose 7th and 8th values are 'st', 'queued': early in the hash, where every
-- read finds it soonest), listed in `queued` at `score` (through lcEnterQueued: `ck` its
-- concurrency key, nil: none), or in `delayed` until `runAt`. `quiet`: a minimal record (`rm`):
-- no stream entry.
local function lcCreate(id, jk, fields, score, runAt, ck, quiet)
  if fields[7] ~= 'st' or fields[8] ~= 'queued' then error('lcCreate: fields must set st queued') end
  redis.call('HSET', jk, unpack(fields))
  if runAt then
    lcIndex('delayed', runAt, id)
  else
    lcEnterQueued(id, score, ck)
  end
  LC.wake = true
  if not quiet then lcTell(id, 'enqueued', 'queued') end
end
