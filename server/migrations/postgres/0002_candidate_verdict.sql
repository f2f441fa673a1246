-- The verdict of a candidate's SPRT: 'h1' (better; waiting for promotion when
-- not promoted automatically) or 'h0' (not better). NULL while undecided.
ALTER TABLE versions ADD COLUMN sprt_result TEXT CHECK (sprt_result IN ('h0', 'h1'));
