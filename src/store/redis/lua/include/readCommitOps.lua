-- Reads a commit's ops from ARGV[first..] (the wire form encodeOps.ts writes) and checks every one
-- BEFORE the caller writes anything: a malformed op refuses the whole call.
--   the plain done: COMMIT_PLAIN_DONE, id, token, output (4 values; not made into a table)
--   any other op:   kind, id, token, then one value per field of COMMIT_OP_FIELDS[kind], in that
--                   table's order: '' when not set; an `entries` field (the log) as a count, then
--                   that many entries.
-- Each op that is not the plain done becomes a record under CommitOp's own names (op.kind,
-- op.output, op.delayMs ...), its `count` fields as numbers.
-- Returns ops (index -> record), plain (index -> the ARGV position of a plain done) and the op
-- count; or nil, the index of the op it cannot read (from 1) and why.
local function isCount(v) return type(v) == 'number' and v >= 0 and v % 1 == 0 end
-- The text each kind cannot do without: lcMove writes it into a parent's fan-in outcome.
local OP_NEEDS = { done = 'output', fail = 'error', retry = 'error', broken = 'error' }

-- Why a read op cannot be applied, or nil. The checks with a name of their own come first.
local function opUnfit(op)
  local kind = op.kind
  if op.version ~= nil and (not isCount(op.version) or op.version < 1) then return 'version' end
  if kind == 'checkpoint' then
    if op.status ~= 'loading' and op.status ~= 'working' then return 'checkpoint status' end
    if op.inboxConsumed ~= nil and not isCount(op.inboxConsumed) then return 'inbox position' end
  elseif kind == 'retry' then
    if not isCount(op.delayMs) then return 'retry delay' end
    if not isCount(op.attempt) or op.attempt < 1 then return 'retry attempt' end
    if op.retryLaters ~= nil and not isCount(op.retryLaters) then return 'retry-later count' end
  elseif kind == 'park' then
    if op.wakeAt ~= nil and not isCount(op.wakeAt) then return 'wake time' end
    if op.inboxConsumed ~= nil and not isCount(op.inboxConsumed) then return 'inbox position' end
    if op.snapshot == nil then return 'park without snapshot' end
  end
  local need = OP_NEEDS[kind]
  if need and op[need] == nil then return need .. ' missing' end
  for _, f in ipairs(COMMIT_OP_FIELDS[kind]) do
    local v = op[f]
    if v ~= nil and COMMIT_OP_TYPES[f] == 'count' and not isCount(v) then return f .. ' is not a count' end
  end
  return nil
end

local function readCommitOps(first)
  local ops, plain, n = {}, {}, 0
  local b, last = first, #ARGV
  while b <= last do
    n = n + 1
    local kind, id, token = ARGV[b], ARGV[b + 1], ARGV[b + 2]
    if kind == COMMIT_PLAIN_DONE then
      if ARGV[b + 3] == nil or id == '' then return nil, n, 'missing values' end
      if ARGV[b + 3] == '' then return nil, n, 'output missing' end
      plain[n] = b
      b = b + 4
    else
      local fields = COMMIT_OP_FIELDS[kind]
      if not fields then return nil, n, 'unknown kind ' .. kind end
      if token == nil or id == '' then return nil, n, 'missing values' end
      local op = { kind = kind, id = id, token = token }
      b = b + 3
      for f = 1, #fields do
        local name, v = fields[f], ARGV[b]
        if v == nil then return nil, n, 'missing values' end
        local t = COMMIT_OP_TYPES[name]
        if t == 'entries' then
          local count = tonumber(v)
          if not isCount(count) or b + count > last then return nil, n, name .. ' is not a count of entries' end
          local list = {}
          for e = 1, count do list[e] = ARGV[b + e] end
          op[name] = list
          b = b + count + 1
        else
          -- A count that is not a number stays text, and is refused as such by opUnfit.
          if v ~= '' then op[name] = t == 'count' and tonumber(v) or v end
          b = b + 1
        end
      end
      local why = opUnfit(op)
      if why then return nil, n, why end
      ops[n] = op
    end
  end
  return ops, plain, n
end
