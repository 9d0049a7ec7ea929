-- The key of a parent's fan-out record: <kp>fan:<parentId>:<group>. The parent's `fg` field
-- names its groups, one "<group>\t<total>" line each (fanOpen-2.lua appends them;
-- fanOutOps.fanGroups reads them).
local function fanKey(kp, parentId, group)
  return kp .. 'fan:' .. parentId .. ':' .. group
end
