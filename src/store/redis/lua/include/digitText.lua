-- The texts of the digits 0-9, by digit + 1: the last digit of a run of numbers made as text
-- once per ten (numText.lua's string.format, ~2k instructions under callgrind, once per ten):
-- THE TOKENS' TEXT (include/lcClaimJobs.lua), THE PLACES' TEXT (include/lcClaimDue.lua). Its own
-- include, not numText's: a table is made anew by every call of a script that has it.
local DIGIT_TEXT = { '0', '1', '2', '3', '4', '5', '6', '7', '8', '9' }
