-- How a keyframe's blob is stored (issue 27, "Recordings that a fleet can
-- afford"): 0 the WorldSnapshot message as it is, 1 a zstd frame of it
-- (RFC 8878), which the store writes whenever the frame is smaller. Most
-- of a recording's bytes are keyframes; doubles of a car's state compress
-- to about a third. Keyframes recorded before this migration, and those
-- of a file imported from an older schema, are 0.
ALTER TABLE snapshots ADD COLUMN encoding INTEGER NOT NULL DEFAULT 0;
