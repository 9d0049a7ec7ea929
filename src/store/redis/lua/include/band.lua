-- Queue scores: priority band in the high bits, FIFO sequence below. 2^44 sequences per band,
-- and 4 bands stay under 2^53, so a double holds the score exactly.
local BAND = 17592186044416
