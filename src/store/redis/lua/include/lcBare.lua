--- @include "redisCall"
-- THE BARE RECORD: most jobs' hash holds only what every job has: the BASE FIELDS lcCreate
-- writes first (m, in, st, qs, ca, and v, ma unless both are the defaults: THE DEFAULTS LEFT
-- OUT, include/lcCreate.lua), then `tk` and `ct` once claimed, and maybe `pr` (a band other than
-- the normal one) and `ck` (a concurrency key). Whether a job has any other field (an audit log,
-- a parent, an inbox, watchers, a snapshot, an attempt past the first ...) is told by its field
-- count (HLEN, O(1)): the hot reads (the claim, the plain done) ask for the few fields they use
-- and read the others only when the count says the record has more. A field a listpack hash
-- lacks costs a scan of the whole hash, and each field asked a reply element: the claim asked
-- for 15 fields of a 7-field hash, the plain done for 9 of a 9-field one, 5 missing.
-- INVARIANT: a job holds every base field it was made with from its creation (lcCreate writes
-- them, before any other) until it ends (only a cancel drops one, `qs`: lcMove; a done record
-- keeps it); no script deletes m, v, in, st, ma or ca. A record of format 3 or older holds v and
-- ma whatever they are: the count takes them as the caller read them, so it holds for both.
-- True when the hash at `jk` holds exactly `n` fields (the ones every bare record of the
-- caller's kind holds: m, in, st, qs, ca, and what the caller adds), `v` and `ma` as the caller
-- read them (each one more when present: a caller that counts one it did not read must know it
-- is there; one it leaves out only makes a bare record read whole), or that and `pr`; `rm`, a MINIMAL RECORD's flag as the
-- caller read it (in the HMGET it makes anyway, on a queue that has had a minimal record:
-- LC.minimal), is one field more of a bare record. (Asked apart, with an HEXISTS, it cost each
-- claim and each done of a minimal job a redis.call, ~3k instructions under callgrind.)
local function lcBare(jk, n, v, ma, rm)
  if v then n = n + 1 end
  if ma then n = n + 1 end
  if rm then n = n + 1 end
  local len = redisCall('HLEN', jk)
  if len == n then return true end
  return len == n + 1 and redisCall('HEXISTS', jk, 'pr') == 1
end
