--- @include "lcState"
--- @include "lcLeave"
-- A finished record made anew under its id (a revived child: enqueue-5.lua): out of every
-- index its status lists it in, with its inbox; lcCreate writes the new one.
local function lcForget(j)
  lcLeave(j)
  redis.call('DEL', j.jk, LC.kp .. 'inbox:' .. j.id, LC.kp .. 'inboxids:' .. j.id)
end
