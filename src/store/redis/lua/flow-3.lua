--[[ flow: changes the flow gate of one queue (a queue, or one partition of a partitioned queue).
KEYS: 1 flow hash, 2 queued zset, 3 marker zset (the others derive from the prefix: ckkeys,
      ckwait:<key>, ck:<key>; see include/lcFlow.lua for the layout and its invariants)
ARGV: 1 key prefix, 2 paused ('1' pause, '0' resume, '' keep), 3 total, 4 perKey (each a
      positive integer to set, '-' to clear, '' to keep), 5 rate limit (starts per window;
      '-' clears the throttle, '' keeps it), 6 its window ms, 7 its burst (extra starts at once),
      8 the strategy for a job whose key is full ('queue', 'cancelNewest', 'cancelInProgress'; ''
      keeps it), 9 'def' when the limits are a definition's (a supervisor's, at start and on each
      registry refresh), else '', 10 the throttle's mode ('skip', or '' for wait; read only when
      5 sets a throttle), 11-14 THE KEY THROTTLE (a GCRA per concurrency key) as 5-7 and 10:
      its limit ('-' clears, '' keeps), window ms, burst, mode, 15 how many gate limits follow
      (THE MACHINE GATES, include/lcGate.lua), then per gate its id and limit ('-' clears), then
      how many machines follow, then per machine its name and gate id ('-': none), then THE
      FAIRNESS between keys ('roundRobin', 'fifo' (the default: clears it), '' keeps it;
      include/lcFlow.lua), then how many machine throttles follow (THE MACHINE THROTTLE,
      include/lcMachineRate.lua), then per machine its name and throttle
      'limit:perMs:burst[:skip]' ('-' clears it)
Returns 1, or 0 when nothing was written (a definition's limits, see WHO WINS).
WHO WINS (docs/flow-control.md): limits set at run time (a change without 'def' that sets a
limit, the strategy or a machine's gate; not a shared limit's value, an 's:' gate, which
definitions never declare) mark the queue `byRun`, for good; a definition's limits are then not
written at all, so a restart cannot undo an operator's change. Otherwise a definition's limits
are written, only what differs (an unchanged throttle keeps its GCRA state; an unchanged set of
limits writes nothing, so the periodic refresh costs one read).
Errors: BAD_FLOW <why> when a value is malformed; nothing is written then.
After any change every job set aside for a full key or machine gate goes back into `queued` at the place it had
(a raised or cleared limit may have room for it; the claim sets it aside again if not), and one
idle supervisor is woken (a resume, or room made, has work for it). On a roundRobin queue a
key's line goes back only as far as the key may have heads in `queued` (lcReleaseLine); a change
of the fairness starts its count afresh (`rrq` goes: a count too low is safe, lcFlow.lua), so
turning it off puts every line back whole and strands nothing.
]]
--- @include "lcKeyGateMark"
--- @include "lcState"
--- @include "lcBatch"
--- @include "lcFlow"
local flowKey, queuedKey, markerKey = KEYS[1], KEYS[2], KEYS[3]
local kp, paused = ARGV[1], ARGV[2]
local function limit(v)
  if v == '' or v == '-' then return true end
  local n = tonumber(v)
  return n and n >= 1 and n % 1 == 0
end
if paused ~= '' and paused ~= '1' and paused ~= '0' then return redis.error_reply('BAD_FLOW paused') end
if not limit(ARGV[3]) then return redis.error_reply('BAD_FLOW total') end
if not limit(ARGV[4]) then return redis.error_reply('BAD_FLOW perKey') end
local rate, per, burst = ARGV[5] or '', tonumber(ARGV[6]), tonumber(ARGV[7])
local strategy = ARGV[8] or ''
local STRATEGIES = { [''] = true, queue = true, cancelNewest = true, cancelInProgress = true }
if not STRATEGIES[strategy] then return redis.error_reply('BAD_FLOW strategy') end
local function badRate(r, p, b, mode)
  if r == '' or r == '-' then return false end
  return not limit(r) or not p or p < 1 or p % 1 ~= 0 or not b or b < 0 or b % 1 ~= 0
    or (mode ~= '' and mode ~= 'skip')
end
local krate, kper, kburst = ARGV[11] or '', tonumber(ARGV[12]), tonumber(ARGV[13])
local rateMode, krateMode = ARGV[10] or '', ARGV[14] or ''
if badRate(rate, per, burst, rateMode) then return redis.error_reply('BAD_FLOW rateLimit') end
if badRate(krate, kper, kburst, krateMode) then return redis.error_reply('BAD_FLOW keyRateLimit') end
local gateArgs, machineArgs = {}, {}
local at = 15
local nGates = tonumber(ARGV[at] or '0') or -1
if nGates < 0 then return redis.error_reply('BAD_FLOW gates') end
for _ = 1, nGates do
  local g, v = ARGV[at + 1], ARGV[at + 2]
  if not g or g == '' or not v or v == '' or not limit(v) then return redis.error_reply('BAD_FLOW gates') end
  gateArgs[#gateArgs + 1] = { g, v }
  at = at + 2
end
local nMachines = tonumber(ARGV[at + 1] or '0') or -1
if nMachines < 0 then return redis.error_reply('BAD_FLOW machines') end
at = at + 1
for _ = 1, nMachines do
  local m, g = ARGV[at + 1], ARGV[at + 2]
  if not m or m == '' or not g or g == '' then return redis.error_reply('BAD_FLOW machines') end
  machineArgs[#machineArgs + 1] = { m, g }
  at = at + 2
end
local fairness = ARGV[at + 1] or ''
if fairness ~= '' and fairness ~= 'fifo' and fairness ~= 'roundRobin' then
  return redis.error_reply('BAD_FLOW fairness')
end
at = at + 1
local rateArgs = {}
local nRates = tonumber(ARGV[at + 1] or '0') or -1
if nRates < 0 then return redis.error_reply('BAD_FLOW machineRateLimits') end
at = at + 1
for _ = 1, nRates do
  local m, spec = ARGV[at + 1], ARGV[at + 2]
  local l, p, b, mode = string.match(spec or '', '^(%d+):(%d+):(%d+):?(%a*)$')
  if not m or m == '' or (spec ~= '-' and (not l or badRate(l, tonumber(p), tonumber(b), mode))) then
    return redis.error_reply('BAD_FLOW machineRateLimits')
  end
  rateArgs[#rateArgs + 1] = { m, spec }
  at = at + 2
end

if ARGV[9] == 'def' then
  local byRun, total, perKey, r, rp, rb, rm, kr, krp, krb, krm = unpack(redis.call('HMGET', flowKey, 'byRun',
    'total', 'perKey', 'rate', 'ratePer', 'rateBurst', 'rateMode', 'krate', 'kratePer', 'krateBurst', 'krateMode'))
  if byRun == '1' then return 0 end
  local function same(arg, v) return (arg == '-' and not v) or arg == v end
  if (rate == '-' and not r) or (rate == r and ARGV[6] == rp and ARGV[7] == rb and rateMode == (rm or '')) then
    rate = ''
  end
  if (krate == '-' and not kr) or (krate == kr and ARGV[12] == krp and ARGV[13] == krb and krateMode == (krm or '')) then
    krate = ''
  end
  local gatesSame = true
  for _, p in ipairs(gateArgs) do
    if not same(p[2], redis.call('HGET', kp .. 'mgates', 'g:' .. p[1])) then gatesSame = false end
  end
  for _, p in ipairs(machineArgs) do
    if not same(p[2], redis.call('HGET', kp .. 'mgates', 'm:' .. p[1])) then gatesSame = false end
  end
  local fair = redis.call('HGET', flowKey, 'fairness') or 'fifo'
  if fairness == fair then fairness = '' end
  -- An unchanged machine throttle is not written (it keeps its GCRA state).
  local kept = {}
  for _, p in ipairs(rateArgs) do
    if not same(p[2], redis.call('HGET', kp .. 'mgates', 'r:' .. p[1])) then kept[#kept + 1] = p end
  end
  rateArgs = kept
  if same(ARGV[3], total) and same(ARGV[4], perKey) and rate == '' and krate == '' and gatesSame and fairness == ''
    and #rateArgs == 0
  then
    return 0
  end
else
  -- A shared limit's value ('s:' gates) is set at run time only (definitions only name it), so
  -- it does not take the definitions' other limits away.
  local own = false
  for _, p in ipairs(gateArgs) do
    if string.sub(p[1], 1, 2) ~= 's:' then own = true end
  end
  if ARGV[3] ~= '' or ARGV[4] ~= '' or rate ~= '' or krate ~= '' or strategy ~= '' or own or nMachines > 0
    or fairness ~= '' or nRates > 0 then
    redis.call('HSET', flowKey, 'byRun', '1')
  end
end

-- THE SLOTS (ck:<key>) are kept only while perKey is set (include/lcFlow.lua's invariants).
local hadPerKey = redis.call('HEXISTS', flowKey, 'perKey') == 1
if paused == '1' then redis.call('HSET', flowKey, 'paused', '1')
elseif paused == '0' then redis.call('HDEL', flowKey, 'paused') end
local given = { total = ARGV[3], perKey = ARGV[4] }
for _, f in ipairs({ 'total', 'perKey' }) do
  local v = given[f]
  if v == '-' then redis.call('HDEL', flowKey, f)
  elseif v ~= '' then redis.call('HSET', flowKey, f, v) end
end
-- THE FAIRNESS (include/lcFlow.lua): its head counts start afresh whenever it changes.
local wasRR = redis.call('HGET', flowKey, 'fairness') == 'roundRobin'
if fairness == 'fifo' then redis.call('HDEL', flowKey, 'fairness')
elseif fairness ~= '' then redis.call('HSET', flowKey, 'fairness', fairness) end
if fairness ~= '' and wasRR ~= (fairness == 'roundRobin') then redis.call('DEL', kp .. 'rrq') end
if strategy == 'queue' then redis.call('HDEL', flowKey, 'strategy')
elseif strategy ~= '' then redis.call('HSET', flowKey, 'strategy', strategy) end
-- A new or cleared throttle starts afresh (its GCRA state, `tat`, goes).
if rate == '-' then redis.call('HDEL', flowKey, 'rate', 'ratePer', 'rateBurst', 'rateMode', 'tat')
elseif rate ~= '' then
  redis.call('HSET', flowKey, 'rate', rate, 'ratePer', ARGV[6], 'rateBurst', ARGV[7])
  if rateMode == 'skip' then redis.call('HSET', flowKey, 'rateMode', 'skip')
  else redis.call('HDEL', flowKey, 'rateMode') end
  redis.call('HDEL', flowKey, 'tat')
end
-- A new or cleared key throttle starts afresh too: every key's GCRA state (and hold, `ktat`) and
-- the keys due (`kdue`) go; their waiting lines go back in line below.
if krate ~= '' then
  redis.call('DEL', kp .. 'ktat', kp .. 'kdue')
  if krate == '-' then redis.call('HDEL', flowKey, 'krate', 'kratePer', 'krateBurst', 'krateMode')
  else
    redis.call('HSET', flowKey, 'krate', krate, 'kratePer', ARGV[12], 'krateBurst', ARGV[13])
    if krateMode == 'skip' then redis.call('HSET', flowKey, 'krateMode', 'skip')
    else redis.call('HDEL', flowKey, 'krateMode') end
  end
end
lcKeyGateMark(flowKey, kp)
for _, p in ipairs(gateArgs) do
  if p[2] == '-' then redis.call('HDEL', kp .. 'mgates', 'g:' .. p[1])
  else redis.call('HSET', kp .. 'mgates', 'g:' .. p[1], p[2]) end
end
for _, p in ipairs(machineArgs) do
  if p[2] == '-' then redis.call('HDEL', kp .. 'mgates', 'm:' .. p[1])
  else redis.call('HSET', kp .. 'mgates', 'm:' .. p[1], p[2]) end
end
-- A new, changed or cleared machine throttle starts afresh (its GCRA state goes).
for _, p in ipairs(rateArgs) do
  if p[2] == '-' then redis.call('HDEL', kp .. 'mgates', 'r:' .. p[1])
  else redis.call('HSET', kp .. 'mgates', 'r:' .. p[1], p[2]) end
  redis.call('HDEL', kp .. 'mtat', p[1])
end
if redis.call('EXISTS', kp .. 'mgates') == 1 then redis.call('HSET', flowKey, 'gated', '1')
else redis.call('HDEL', flowKey, 'gated') end
local mrated = false
for _, f in ipairs(redis.call('HKEYS', kp .. 'mgates')) do
  if string.sub(f, 1, 2) == 'r:' then mrated = true; break end
end
if mrated then redis.call('HSET', flowKey, 'mrated', '1')
else redis.call('HDEL', flowKey, 'mrated'); redis.call('DEL', kp .. 'mtat') end
-- Every gate line goes back below (the machines' rate lines too): none is due any more.
redis.call('DEL', kp .. 'mdue')

-- perKey set now and not before: the slots are rebuilt from the running jobs (each one's `ck`,
-- bounded by how many run), in this call, so the next claim counts them; cleared: they go. Any
-- set first goes (those of the running jobs' keys, and of ckkeys: a set left by an older
-- version that kept slots without perKey), so a rebuilt set holds exactly the running jobs.
local hasPerKey = redis.call('HEXISTS', flowKey, 'perKey') == 1
if hadPerKey ~= hasPerKey then
  local running = {}
  for _, id in ipairs(redis.call('ZRANGE', kp .. 'active', 0, -1)) do
    local ck = redis.call('HGET', kp .. 'job:' .. id, 'ck')
    if ck then running[#running + 1] = { id, ck }; redis.call('DEL', kp .. 'ck:' .. ck) end
  end
  for _, ck in ipairs(redis.call('SMEMBERS', kp .. 'ckkeys')) do redis.call('DEL', kp .. 'ck:' .. ck) end
  if hasPerKey then
    for _, r in ipairs(running) do redis.call('SADD', kp .. 'ck:' .. r[2], r[1]) end
  end
end
-- Back at their own places (the scores are their places in line), as the fairness now says.
LC.kp = kp
for _, ck in ipairs(redis.call('SMEMBERS', kp .. 'ckkeys')) do lcReleaseLine(ck) end
-- The machine gates' lines too (include/lcGate.lua).
for _, g in ipairs(redis.call('SMEMBERS', kp .. 'gkeys')) do
  local wk = kp .. 'gwait:' .. g
  if redis.call('EXISTS', wk) == 1 then
    redis.call('ZUNIONSTORE', queuedKey, 2, queuedKey, wk, 'AGGREGATE', 'MIN')
    redis.call('DEL', wk)
  end
  if redis.call('SCARD', kp .. 'gh:' .. g) == 0 then redis.call('SREM', kp .. 'gkeys', g) end
end
redis.call('ZADD', markerKey, 0, 'w')
return 1
