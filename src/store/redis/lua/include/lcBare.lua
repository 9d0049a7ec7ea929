-- THE BARE RECORD: most jobs' hash holds only what every job has: the seven BASE FIELDS lcCreate
-- writes first (m, v, in, st, qs, ma, ca), then `tk` and `ct` once claimed, and maybe `pr` (a
-- band other than the normal one) and `ck` (a concurrency key). Whether a job has any other field
-- (an audit log, a parent, an inbox, watchers, a snapshot, an attempt past the first ...) is told
-- by its field count (HLEN, O(1)): the hot reads (the claim, the plain done) ask for the few
-- fields they use and read the others only when the count says the record has more. A field a
-- listpack hash lacks costs a scan of the whole hash, and each field asked a reply element: the
-- claim asked for 15 fields of a 7-field hash, the plain done for 9 of a 9-field one, 5 missing.
-- INVARIANT: a job holds every base field from its creation (lcCreate writes them, before any
-- other) until it ends (only a final status drops one, `qs`: lcMove, lcDonePlain);
-- no script deletes m, v, in, st, ma or ca.
-- True when the hash at `jk` holds exactly `n` fields, or `n` and `pr`.
local function lcBare(jk, n)
  local len = redis.call('HLEN', jk)
  return len == n or (len == n + 1 and redis.call('HEXISTS', jk, 'pr') == 1)
end
