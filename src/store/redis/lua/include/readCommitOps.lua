-- Reads a commit's ops from ARGV[first..] (the wire form encodeOps.ts writes) and checks every one
-- BEFORE the caller writes anything: a malformed op refuses the whole call.
--   the plain done: COMMIT_PLAIN_DONE, id, token, output (4 values; not made into a table)
--   A RUN OF PLAIN DONES (k of them, one op each): COMMIT_PLAIN_DONE, '' (no single done has an
--                   empty id), k, then their shared output and per done its id and token, or ''
--                   and per done its id, token and output. Each value sent costs Redis ~0.8k
--                   instructions (made a string, then a Lua string): a run of no-op jobs' dones
--                   sends 2 a job, not 4.
--   a compact op:   its letter (COMMIT_COMPACT: a checkpoint, or a done that is not plain, with no
--                   version), id, token, a value per field of COMMIT_COMPACT[letter].own, then ''
--                   and a value per field of its .shared (set k: the k-th such of the call), or k
--                   to share the values of set k (sent by an op of the same letter before it);
--                   checked here, not made into a table (include/lcCompactOp.lua reads it)
--   A RUN OF COMPACT OPS (k >= 1 of one letter sharing one set): COMMIT_COMPACT_RUN, the letter,
--                   k, then '' and the set's values or the number of a set sent before (as a
--                   compact op's), then per op its id, token and own values: 2 + own values an
--                   op, where alone it sends 4 + own.
--   any other op:   kind, id, token, then one value per field of COMMIT_OP_FIELDS[kind], in that
--                   table's order: '' when not set; an `entries` field (the log) as a count, then
--                   that many entries.
-- Each op that is none of these becomes a record under CommitOp's own names (op.kind, op.output,
-- op.delayMs ...), its `count` fields as numbers.
-- Returns ops, at and the op count; or nil, the index of the op it cannot read (from 1) and why.
-- Per op index: a plain done has at = MINUS the ARGV position of its id (its token next) and ops
-- = the position of its output; a compact op has at = the position of its id (its token and own
-- values next, alone or in a run) and ops = the position of its set's shared values, whose
-- letter LC.compactAt[position] says; any other op has ops = its record and no at. (One table
-- for both positions: commit-12.lua's main chunk has no local to spare.)
--- @include "lcState"
local function isCount(v) return type(v) == 'number' and v >= 0 and v % 1 == 0 end

-- The op of `kind` whose values of `fields` start at ARGV[b], as a record (one pass over the
-- values: the Lua VM's per-field cost is what an op costs here, measured: a second loop over the
-- fields to check them cost as much as cjson.decode did); returns it and the position after it,
-- or nil and why it cannot be applied: the checks with a name of their own, then the first count
-- field whose value was not a count.
local function readOp(kind, id, token, fields, b)
  local A, last = ARGV, #ARGV
  local op, notCount = { kind = kind, id = id, token = token }, nil
  for f = 1, #fields do
    local name, v = fields[f], A[b]
    if v == nil then return nil, 'missing values' end
    local t = COMMIT_OP_TYPES[name]
    if t == 'entries' then
      local count = tonumber(v)
      if not isCount(count) or b + count > last then return nil, name .. ' is not a count of entries' end
      local list = {}
      for e = 1, count do list[e] = A[b + e] end
      op[name] = list
      b = b + count + 1
    else
      if v ~= '' then
        if t == 'count' then
          -- Not a count: kept as text, refused below (after the checks with a name of their own).
          local c = tonumber(v)
          if isCount(c) then v = c elseif not notCount then notCount = name end
        end
        op[name] = v
      end
      b = b + 1
    end
  end
  if op.version ~= nil and (not isCount(op.version) or op.version < 1) then return nil, 'version' end
  if kind == 'checkpoint' then
    if op.status ~= 'loading' and op.status ~= 'working' then return nil, 'checkpoint status' end
    if op.inboxConsumed ~= nil and not isCount(op.inboxConsumed) then return nil, 'inbox position' end
  elseif kind == 'retry' then
    if not isCount(op.delayMs) then return nil, 'retry delay' end
    if not isCount(op.attempt) or op.attempt < 1 then return nil, 'retry attempt' end
    if op.retryLaters ~= nil and not isCount(op.retryLaters) then return nil, 'retry-later count' end
    if op.holdMs ~= nil and not isCount(op.holdMs) then return nil, 'rate-limit hold' end
  elseif kind == 'park' then
    if op.wakeAt ~= nil and not isCount(op.wakeAt) then return nil, 'wake time' end
    if op.inboxConsumed ~= nil and not isCount(op.inboxConsumed) then return nil, 'inbox position' end
    if op.snapshot == nil then return nil, 'park without snapshot' end
  end
  -- The text each kind cannot do without: lcMove writes it into a parent's fan-in outcome.
  local need = (kind == 'done' and 'output') or ((kind == 'fail' or kind == 'retry' or kind == 'broken') and 'error')
  if need and op[need] == nil then return nil, need .. ' missing' end
  if notCount then return nil, notCount .. ' is not a count' end
  return op, b
end

local function readCommitOps(first)
  local A = ARGV
  local ops, at, n = {}, {}, 0
  -- The numbers of the compact ops' counts and inbox positions, by their text: the ops of a call
  -- share a few ('0', '1', '2'), and tonumber costs a strtod (~0.6k instructions) each.
  local nums = {}
  -- The compact ops' sets of shared values: their ARGV positions and letters, by number; and the
  -- letter of each by its position (LC.compactAt, for include/lcCompactOp.lua).
  local sets, setKinds, letterAt = {}, {}, {}
  LC.compactAt = letterAt
  local b, last = first, #A
  -- The set a compact op of `kind` (COMMIT_COMPACT[kind]: `compact`) names at ARGV[refAt]: ''
  -- then its values, checked as readOp checks the fields (the log last: its count, then the
  -- entries), or the number of a set an op of its letter sent before. Returns the set's position
  -- and the position after what was read; or nil, and why.
  local function readSet(kind, compact, refAt)
    local ref = A[refAt]
    if ref == nil then return nil, 'missing values' end
    if ref ~= '' then
      local k = nums[ref]
      if k == nil then k = tonumber(ref); nums[ref] = k or false end
      local t = k and sets[k]
      if not t or setKinds[k] ~= kind then return nil, 'shared values' end
      return t, refAt + 1
    end
    local t = refAt + 1
    local logAt = refAt + #compact.shared
    local v = A[logAt]
    if v == nil then return nil, 'missing values' end
    local count = nums[v]
    if count == nil then count = tonumber(v); nums[v] = count or false end
    if not isCount(count) or logAt + count > last then return nil, 'log is not a count of entries' end
    if compact.kind == 'checkpoint' then
      local status, io = A[t], A[t + 3]
      if status ~= 'loading' and status ~= 'working' then return nil, 'checkpoint status' end
      if io ~= '' then
        local c = nums[io]
        if c == nil then c = tonumber(io); nums[io] = c or false end
        if not isCount(c) then return nil, 'inbox position' end
      end
    end
    sets[#sets + 1] = t
    setKinds[#sets] = kind
    letterAt[t] = kind
    return t, logAt + count + 1
  end
  while b <= last do
    n = n + 1
    local kind, id, token = A[b], A[b + 1], A[b + 2]
    local compact = kind ~= COMMIT_PLAIN_DONE and COMMIT_COMPACT[kind]
    if kind == COMMIT_PLAIN_DONE and id == '' then
      local k, out = tonumber(token), A[b + 3]
      if not isCount(k) or k < 1 then return nil, n, 'not a count of plain dones' end
      -- w values a done: id, token (and its output when the run has no shared one).
      local w, shared = out == '' and 3 or 2, b + 3
      b = b + 4
      if out == nil or b + k * w - 1 > last then return nil, n, 'missing values' end
      for r = 1, k do
        if r > 1 then n = n + 1 end
        if A[b] == '' then return nil, n, 'missing values' end
        local o = shared
        if w == 3 then
          o = b + 2
          if A[o] == '' then return nil, n, 'output missing' end
        end
        at[n] = -b
        ops[n] = o
        b = b + w
      end
    elseif kind == COMMIT_PLAIN_DONE then
      local output = A[b + 3]
      if output == nil then return nil, n, 'missing values' end
      if output == '' then return nil, n, 'output missing' end
      at[n] = -(b + 1)
      ops[n] = b + 3
      b = b + 4
    elseif compact then
      if id == '' or token == nil then return nil, n, 'missing values' end
      local t, next = readSet(kind, compact, b + 3 + #compact.own)
      if not t then return nil, n, next end
      if compact.kind == 'done' and A[b + 3] == '' then return nil, n, 'output missing' end
      at[n], ops[n] = b + 1, t
      b = next
    elseif kind == COMMIT_COMPACT_RUN then
      -- Its letter (in `id`'s place) and how many ops (in `token`'s).
      compact = COMMIT_COMPACT[id]
      local k = tonumber(token)
      if not compact then return nil, n, 'unknown kind ' .. tostring(id) end
      if not isCount(k) or k < 1 then return nil, n, 'not a count of compact ops' end
      local t, next = readSet(id, compact, b + 3)
      if not t then return nil, n, next end
      -- w values an op: id, token, own values.
      local w = 2 + #compact.own
      b = next
      if b + k * w - 1 > last then return nil, n, 'missing values' end
      local done = compact.kind == 'done'
      for r = 1, k do
        if r > 1 then n = n + 1 end
        if A[b] == '' then return nil, n, 'missing values' end
        if done and A[b + 2] == '' then return nil, n, 'output missing' end
        at[n], ops[n] = b, t
        b = b + w
      end
    else
      local fields = COMMIT_OP_FIELDS[kind]
      if not fields then return nil, n, 'unknown kind ' .. kind end
      if token == nil or id == '' then return nil, n, 'missing values' end
      local op, next = readOp(kind, id, token, fields, b + 3)
      if not op then return nil, n, next end
      ops[n] = op
      b = next
    end
  end
  return ops, at, n
end
