--- @include "lcState"
-- THE BARE RECORD: most jobs' hash holds only what every job has: the seven BASE FIELDS lcCreate
-- writes first (m, v, in, st, qs, ma, ca), then `tk` and `ct` once claimed, and maybe `pr` (a
-- band other than the normal one) and `ck` (a concurrency key). Whether a job has any other field
-- (an audit log, a parent, an inbox, watchers, a snapshot, an attempt past the first ...) is told
-- by its field count (HLEN, O(1)): the hot reads (the claim, the plain done) ask for the few
-- fields they use and read the others only when the count says the record has more. A field a
-- listpack hash lacks costs a scan of the whole hash, and each field asked a reply element: the
-- claim asked for 15 fields of a 7-field hash, the plain done for 9 of a 9-field one, 5 missing.
-- INVARIANT: a job holds every base field from its creation (lcCreate writes them, before any
-- other) until it ends (only a cancel drops one, `qs`: lcMove; a done record keeps it);
-- no script deletes m, v, in, st, ma or ca.
-- True when the hash at `jk` holds exactly `n` fields, or `n` and `pr`, or (on a queue that has
-- had a minimal record, LC.minimal) `n` and `rm`: then also '1', the record's `rm`.
-- On a queue that has had a minimal record `rm` is asked first: such a queue's jobs are most
-- often minimal ones of the normal band (one HEXISTS a read, not two: ~3k instructions each).
local function lcBare(jk, n)
  local len = redis.call('HLEN', jk)
  if len == n then return true end
  if len ~= n + 1 then return false end
  if LC.minimal and redis.call('HEXISTS', jk, 'rm') == 1 then return true, '1' end
  if redis.call('HEXISTS', jk, 'pr') == 1 then return true end
  return false
end
