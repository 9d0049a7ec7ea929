-- ONE GCRA PER NAME (generic cell rate algorithm), the one copy behind the throttles that keep a
-- state per name: each concurrency key's (lcKeyGate.lua) and each machine's (lcMachineRate.lua).
-- The queue's own throttle (commit-12.lua) takes a batch at once and carries lateness; it keeps
-- its own arithmetic. A name's state is its theoretical arrival time `tat` (store ms), a field of
-- hash `h`; `g` is { T = emission interval, tau = tolerance (burst * T), rated = a throttle
-- exists }: with none (T = tau = 0) the state is only a hold's end, dropped once passed.

-- The GCRA of `g` and tolerance for a throttle `limit` per `per` ms with `burst` more at once.
local function lcGcraOf(limit, per, burst)
  local T = tonumber(per) / tonumber(limit)
  return { T = T, tau = (tonumber(burst) or 0) * T, rated = true }
end

-- Name `f` may start one job now: nil, and with `spend` its start is spent. Else the time (ms)
-- it may start one.
local function lcGcraAt(h, f, now, g, spend)
  local kt = tonumber(redis.call('HGET', h, f))
  if not kt and not g.rated then return nil end
  local t0 = math.max(kt or now, now)
  if t0 > now + g.tau then return math.ceil(t0 - g.tau) end
  if not spend then return nil end
  if g.rated then redis.call('HSET', h, f, string.format('%.3f', t0 + g.T))
  else redis.call('HDEL', h, f) end
  return nil
end

-- Name `f`'s line waits until `at`: into due zset `z` (only ever earlier).
local function lcDueAt(z, f, at)
  local cur = tonumber(redis.call('ZSCORE', z, f))
  if not cur or cur > at then redis.call('ZADD', z, at, f) end
end

-- A line of name `f` is due now: how many of it may go back in line (as many as the GCRA allows
-- now; all, 1000 at most, with no throttle), and when the rest are due, if any remain.
local function lcGcraRoom(h, f, now, g)
  local t0 = math.max(tonumber(redis.call('HGET', h, f)) or now, now)
  if not g.rated then return 1000, nil end
  local n = math.max(1, math.floor((now + g.tau - t0) / g.T) + 1)
  return n, math.ceil(t0 + n * g.T - g.tau)
end
