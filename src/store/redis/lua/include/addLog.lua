--- @include "lcState"
--- @include "numText"
-- The audit log lives in the job hash as fields l1, l2, ... with the count in `ls`, so logging
-- rides on the HSET a write makes anyway instead of costing a command of its own. At most
-- LOG_CAP entries are kept: the oldest fall out.
-- An entry is stored as "<at> <type>" when it is only a type (most are: enqueued, claimed,
-- done), else "<at> <JSON object without at>": 22 bytes instead of 39 for the common ones,
-- which keeps a finished job's hash small. RedisStore.getLog turns both back into objects.
--
-- IMPLICIT LOG: while a job's log is exactly the standard start, no log field is written and
-- `ls` is absent: "enqueued" at `ca`, then "claimed" at `ct` (claim of attempt 1), then "done"
-- at `fa` (when `st` is done). enqueue-5 and commit-12 (claim, done) skip the log for exactly
-- these entries; RedisStore.getLog rebuilds them. Any other entry goes through addLog, which
-- first writes the implicit entries out (l1, l2) so the order and the stamps stay the same.
-- A MINIMAL RECORD (`rm`, include/lcMove.lua) has no implicit log: its first entry written (a
-- cancel request, an event sent to it) is its first.
-- LOG_CAP is generated from src/store/storeConstants.ts (luaConstants.ts).

-- Entries stamped in this call, by their text: most jobs of a batch log the same entries
-- ('{"type":"done"}', ...), each is built once per call.
local stamped = {}
-- A log position's field name ('l<n>') and its text for `ls`, made once per position a call
-- (numText: a string.format, ~2k instructions under callgrind; the jobs of a batch mostly write
-- the same positions). The field name in logFieldText, the number's text in logPosText.
local logFieldText, logPosText = {}, {}

local function logPosOnce(n)
  local t = numText(n)
  logPosText[n] = t
  logFieldText[n] = 'l' .. t
  return t
end

local function logText(now, e)
  local t = string.match(e, '^{"type":"([%w%-]+)"}$')
  return now .. ' ' .. (t or e)
end

-- Appends entries (JSON objects without "at") to the HSET argument list `args`; returns the
-- new ls. `ls` is the stored field as read (nil/false when the log is still implicit).
-- Positions go out as integer text (numText.lua): a number in a concatenation ('l' .. n) or
-- passed to redis.call is formatted as a float (~3.6k instructions under callgrind, each).
-- No entries and a log written out already: nothing to write (a wake-up, a requeue).
local function addLog(args, jobKey, ls, now, entries)
  if ls and #entries == 0 then return tonumber(ls) end
  ls = tonumber(ls)
  if not ls then
    ls = 0
    local ca, ct, rm
    if LC.minimal then
      ca, ct, rm = unpack(redis.call('HMGET', jobKey, 'ca', 'ct', 'rm'))
      if rm then ca, ct = nil, nil end
    else
      ca, ct = unpack(redis.call('HMGET', jobKey, 'ca', 'ct'))
    end
    if ca then
      ls = 1
      args[#args + 1] = 'l1'; args[#args + 1] = ca .. ' enqueued'
    end
    if ct then
      ls = ls + 1
      args[#args + 1] = 'l' .. ls; args[#args + 1] = ct .. ' claimed'
    end
  end
  -- A numeric for, not ipairs (two calls of its iterator for one entry).
  for k = 1, #entries do
    local e = entries[k]
    ls = ls + 1
    if not logFieldText[ls] then logPosOnce(ls) end
    args[#args + 1] = logFieldText[ls]
    local s = stamped[e]
    if not s then
      s = logText(now, e)
      stamped[e] = s
    end
    args[#args + 1] = s
    if ls > LOG_CAP then redis.call('HDEL', jobKey, 'l' .. numText(ls - LOG_CAP)) end
  end
  args[#args + 1] = 'ls'
  args[#args + 1] = logPosText[ls] or logPosOnce(ls)
  return ls
end

-- addLog for one entry `e` on a log written out already (`ls`: its count, a number): the new
-- count's text (the entry's field is 'l' .. it, and `ls` it) and the entry's text, for a caller
-- that passes them to redis.call itself: the claim (include/lcClaim.lua), without an argument
-- table and addLog's walk of it (~6k instructions a job under callgrind). The same entry, stamp
-- and cap as addLog's loop.
local function addLogOne(jobKey, ls, now, e)
  ls = ls + 1
  local s = stamped[e]
  if not s then
    s = logText(now, e)
    stamped[e] = s
  end
  if ls > LOG_CAP then redis.call('HDEL', jobKey, 'l' .. numText(ls - LOG_CAP)) end
  return logPosText[ls] or logPosOnce(ls), s
end
