-- The worker holding a lease: a token is "<workerId>:<n>" (see the claim in commit-12.lua), so
-- the record needs no worker field of its own.
local function tokenWorker(tk)
  if not tk or tk == '' then return nil end
  return string.match(tk, '^(.*):%d+$')
end
