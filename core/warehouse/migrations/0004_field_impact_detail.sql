-- 0004: per-repeat detail of field-impact rows (base/variant TS and TC per repeat,
-- tools changed, supplement notes) and the TC change, for the study tables and charts.
ALTER TABLE field_impact ADD COLUMN IF NOT EXISTS delta_tc_pp DOUBLE;
ALTER TABLE field_impact ADD COLUMN IF NOT EXISTS detail JSON;
