-- Reads a commit's ops from ARGV[first..] (the wire form encodeOps.ts writes) and checks every one
-- BEFORE the caller writes anything: a malformed op refuses the whole call.
--   the plain done: COMMIT_PLAIN_DONE, id, token, output (4 values; not made into a table)
--   A RUN OF PLAIN DONES (k of them, one op each): COMMIT_PLAIN_DONE, '' (no single done has an
--                   empty id), k, then their shared output and per done its id and token, or ''
--                   and per done its id, token and output. Each value sent costs Redis ~0.8k
--                   instructions (made a string, then a Lua string): a run of no-op jobs' dones
--                   sends 2 a job, not 4.
--   any other op:   kind, id, token, then one value per field of COMMIT_OP_FIELDS[kind], in that
--                   table's order: '' when not set; an `entries` field (the log) as a count, then
--                   that many entries.
-- Each op that is not the plain done becomes a record under CommitOp's own names (op.kind,
-- op.output, op.delayMs ...), its `count` fields as numbers.
-- Returns ops (index -> record; for a plain done the ARGV position of its output), plain (index
-- -> the ARGV position of a plain done's id, its token next) and the op count; or nil, the
-- index of the op it cannot read (from 1) and why.
local function isCount(v) return type(v) == 'number' and v >= 0 and v % 1 == 0 end
-- The text each kind cannot do without: lcMove writes it into a parent's fan-in outcome.
local OP_NEEDS = { done = 'output', fail = 'error', retry = 'error', broken = 'error' }

-- Why a read op cannot be applied, or nil: the checks with a name of their own, then `notCount`,
-- the first count field whose value was not a count.
local function opUnfit(op, notCount)
  local kind = op.kind
  if op.version ~= nil and (not isCount(op.version) or op.version < 1) then return 'version' end
  if kind == 'checkpoint' then
    if op.status ~= 'loading' and op.status ~= 'working' then return 'checkpoint status' end
    if op.inboxConsumed ~= nil and not isCount(op.inboxConsumed) then return 'inbox position' end
  elseif kind == 'retry' then
    if not isCount(op.delayMs) then return 'retry delay' end
    if not isCount(op.attempt) or op.attempt < 1 then return 'retry attempt' end
    if op.retryLaters ~= nil and not isCount(op.retryLaters) then return 'retry-later count' end
    if op.holdMs ~= nil and not isCount(op.holdMs) then return 'rate-limit hold' end
  elseif kind == 'park' then
    if op.wakeAt ~= nil and not isCount(op.wakeAt) then return 'wake time' end
    if op.inboxConsumed ~= nil and not isCount(op.inboxConsumed) then return 'inbox position' end
    if op.snapshot == nil then return 'park without snapshot' end
  end
  local need = OP_NEEDS[kind]
  if need and op[need] == nil then return need .. ' missing' end
  if notCount then return notCount .. ' is not a count' end
  return nil
end

-- One pass over the values (the Lua VM's per-field cost is what an op costs here, measured:
-- a second loop over the fields to check them cost as much as cjson.decode did).
local function readCommitOps(first)
  local A = ARGV
  local ops, plain, n = {}, {}, 0
  local b, last = first, #A
  while b <= last do
    n = n + 1
    local kind, id, token = A[b], A[b + 1], A[b + 2]
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
        plain[n] = b
        ops[n] = o
        b = b + w
      end
    elseif kind == COMMIT_PLAIN_DONE then
      local output = A[b + 3]
      if output == nil then return nil, n, 'missing values' end
      if output == '' then return nil, n, 'output missing' end
      plain[n] = b + 1
      ops[n] = b + 3
      b = b + 4
    else
      local fields = COMMIT_OP_FIELDS[kind]
      if not fields then return nil, n, 'unknown kind ' .. kind end
      if token == nil or id == '' then return nil, n, 'missing values' end
      local op, notCount = { kind = kind, id = id, token = token }, nil
      b = b + 3
      for f = 1, #fields do
        local name, v = fields[f], A[b]
        if v == nil then return nil, n, 'missing values' end
        local t = COMMIT_OP_TYPES[name]
        if t == 'entries' then
          local count = tonumber(v)
          if not isCount(count) or b + count > last then return nil, n, name .. ' is not a count of entries' end
          local list = {}
          for e = 1, count do list[e] = A[b + e] end
          op[name] = list
          b = b + count + 1
        else
          if v ~= '' then
            if t == 'count' then
              -- Not a count: kept as text, refused by opUnfit (after the checks it names).
              local c = tonumber(v)
              if isCount(c) then v = c elseif not notCount then notCount = name end
            end
            op[name] = v
          end
          b = b + 1
        end
      end
      local why = opUnfit(op, notCount)
      if why then return nil, n, why end
      ops[n] = op
    end
  end
  return ops, plain, n
end
