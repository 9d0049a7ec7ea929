-- EDGES (from -> to -> event) and UPDATABLE (statuses a write may keep) are generated from
-- src/store/lifecycleTable.ts (luaConstants.ts), as FINAL is for lcMove.
-- nil when `j` may move to `to`, else why not: 'missing' | 'fence' | 'status'.
-- `token`: the caller's lease token (nil for moves no worker makes: cancel, send, reap, redrive).
local function lcGuard(j, to, token)
  if not j.st then return 'missing' end
  if token ~= nil and (token == '' or j.tk ~= token) then return 'fence' end
  if j.st == to then
    if UPDATABLE[to] or to == 'queued' then return nil end
    return 'status'
  end
  local e = EDGES[j.st]
  if e and e[to] then return nil end
  -- LOADED then SUCCEED, the LOADED checkpoint superseded by the done before it was sent.
  if j.st == 'loading' and to == 'done' and token ~= nil then return nil end
  return 'status'
end
