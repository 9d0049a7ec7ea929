--- @include "lcState"
--- @include "lcBatch"
--- @include "lcFlow"
--- @include "lcTally"
--- @include "recordKeys"
-- THE MINIMAL DONE (a record made with `record: 'minimal'`, field `rm`; docs/concepts.md): a job
-- that ends done leaves nothing behind. Its watchers had the result already (lcMove pushes it
-- first when the record has `wt`; a plain done has none), no webhook names it (the client makes a
-- job with webhooks a full record), so the record goes at once with what only it needs
-- (recordKeys, as retention deletes one) instead of being listed in `done` for the sweep. The
-- queue's tally still counts it. Called after THE FENCE and the status check.
local function lcDoneMinimal(id, ck, ca, ct)
  lcRemove('active', id)
  if ck then lcFreeSlot(id, ck) end
  lcTally('done', ca, ct)
  redis.call('DEL', unpack(recordKeys(LC.kp, id)))
  return 1
end
