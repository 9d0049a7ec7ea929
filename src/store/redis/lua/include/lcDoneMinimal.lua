--- @include "lcState"
--- @include "lcBatch"
--- @include "lcFlow"
--- @include "lcTally"
--- @include "redisCall"
-- THE MINIMAL DONE (a record made with `record: 'minimal'`, field `rm`; docs/concepts.md): a job
-- that ends done leaves nothing behind. Its watchers had the result already (lcMove pushes it
-- first when the record has `wt`; a plain done has none), no webhook names it (the client makes a
-- job with webhooks a full record), so the record goes at once instead of being listed in `done`
-- for the sweep. The queue's tally still counts it. Called by the plain done (lcDonePlain.lua),
-- after THE FENCE and the status check, for a record with no inbox (`ib`): of the keys a
-- record's deletion takes (recordKeys.lua: its hash, webhook bookkeeping, inbox list and ids)
-- only its hash can exist then, and it alone is deleted (3 keys fewer a job: ~2k instructions
-- under callgrind). lcMove's minimal done, for any other record, deletes them all.
local function lcDoneMinimal(id, jk, ck, ca, ct)
  lcRemove('active', id)
  if ck then lcFreeSlot(id, ck) end
  lcTally('done', ca, ct)
  redisCall('DEL', jk)
  return 1
end
