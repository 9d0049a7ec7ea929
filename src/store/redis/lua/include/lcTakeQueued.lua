--- @include "lcState"
--- @include "lcReady"
--- @include "numText"
-- THE CLAIM'S TAKE (include/lcReady.lua): up to `count` runnable jobs off the front of the line,
-- `queued` (zset) and `ready` (list) merged by score, stale entries of `ready` dropped on the way.
-- Returns their ids in line order and, with `withScores`, their places (texts or numbers, as
-- ZADD takes them), both lists of the same length; fewer than `count` only when the line is
-- shorter. A list entry's place is its record's `qs`, read only when the zset's head is in the
-- normal band too (another band's head is before or after the whole list) or when asked for.
-- `listed`: the list's length as this call read it last, when nothing can have pushed to or popped
-- it since (THE LIST'S LENGTH HANDED OVER, include/lcClaimDue.lua: whether it is empty is all that
-- is used); nil: read here.
local function lcTakeQueued(count, withScores, listed)
  local kp = LC.kp
  local qk, rk = kp .. 'queued', kp .. 'ready'
  local ids, scores = {}, withScores and {} or nil
  if (listed or redis.call('LLEN', rk)) == 0 then
    -- No list (a format-2 store's queue, or only other bands): the zset alone, as before: the
    -- ids alone when no place is asked for (ZRANGE, ZREMRANGEBYRANK: as ZPOPMIN, without a score
    -- formatted as a float per job).
    if withScores then
      local b = redis.call('ZPOPMIN', qk, numText(count))
      for i = 1, #b, 2 do ids[#ids + 1] = b[i]; scores[#scores + 1] = b[i + 1] end
    else
      ids = redis.call('ZRANGE', qk, '0', numText(count - 1))
      if #ids > 0 then redis.call('ZREMRANGEBYRANK', qk, '0', numText(#ids - 1)) end
    end
    return ids, scores
  end
  local marked = redis.call('EXISTS', kp .. 'readygone') == 1
  -- The list alone, no entry stale, no place asked for (most claims): its front as it is.
  if not marked and not withScores and redis.call('ZCARD', qk) == 0 then
    return redis.call('LPOP', rk, count) or {}, nil
  end
  -- Rounds: a round's windows are the first `count - #ids` of each; a stale entry used a place of
  -- its window, so another round may be needed.
  while #ids < count do
    local want = count - #ids
    local zs = redis.call('ZRANGE', qk, '0', numText(want - 1), 'WITHSCORES')
    local ls
    if #zs == 0 then ls = redis.call('LPOP', rk, want) or {} else ls = redis.call('LRANGE', rk, '0', numText(want - 1)) end
    if #zs == 0 and #ls == 0 then break end
    local zi, li, zn, ln = 1, 1, #zs / 2, #ls
    -- The current list entry's place (nil: not read yet), and the last entry found not stale.
    local lPlace, lChecked = nil, 0
    while #ids < count and (zi <= zn or li <= ln) do
      local lid = ls[li]
      -- The list's window used up while the list may hold more (stale entries took places in
      -- it): the next round reads on, before any zset entry is taken past the window's end.
      if not lid and ln == want then break end
      if lid and marked and lChecked ~= li and lcReadyStale(lid) then
        li = li + 1
      else
        lChecked = li
        local takeList
        if not lid then takeList = false
        elseif zi > zn then takeList = true
        else
          local z = tonumber(zs[zi * 2])
          if z >= READY_HI then takeList = true
          elseif z < READY_LO then takeList = false
          else
            -- Both in the normal band: the list entry's place decides. A record without one (gone
            -- from under its entry) is taken now: the claim sets it aside as broken.
            if lPlace == nil then lPlace = tonumber(redis.call('HGET', kp .. 'job:' .. lid, 'qs')) or -1 end
            takeList = lPlace < z
          end
        end
        local n = #ids + 1
        if takeList then
          ids[n] = lid
          if withScores then
            scores[n] = lPlace or redis.call('HGET', kp .. 'job:' .. lid, 'qs') or '0'
          end
          li = li + 1
          lPlace = nil
        else
          ids[n] = zs[zi * 2 - 1]
          if withScores then scores[n] = zs[zi * 2] end
          zi = zi + 1
        end
      end
    end
    if zi > 1 then redis.call('ZREMRANGEBYRANK', qk, '0', numText(zi - 2)) end
    -- The list entries taken or dropped go (an LPOP took them already: it took `want`, and each
    -- gave at most one job, so all were used).
    if #zs > 0 and li > 1 then redis.call('LTRIM', rk, numText(li - 1), '-1') end
    -- Both windows short and used up: the line is empty.
    if zn < want and ln < want and zi > zn and li > ln then break end
  end
  return ids, scores
end

-- Whether any job is runnable now (a stale entry of `ready` may answer yes: a wake for nothing).
local function lcQueuedAny()
  local kp = LC.kp
  return redis.call('ZCARD', kp .. 'queued') > 0 or redis.call('LLEN', kp .. 'ready') > 0
end
