-- 0009: the paired per-task evidence of a comparison, beside Mann-Whitney U over runs: the mean
-- per-task difference with its bootstrap interval, the exact McNemar test on the tasks' majority
-- outcomes, and the minimum detectable effect of that many paired tasks (alpha 0.05, power 0.8).
ALTER TABLE comparison_tests ADD COLUMN IF NOT EXISTS paired_delta DOUBLE;
ALTER TABLE comparison_tests ADD COLUMN IF NOT EXISTS paired_low DOUBLE;
ALTER TABLE comparison_tests ADD COLUMN IF NOT EXISTS paired_high DOUBLE;
ALTER TABLE comparison_tests ADD COLUMN IF NOT EXISTS paired_n INTEGER;
ALTER TABLE comparison_tests ADD COLUMN IF NOT EXISTS mcnemar_b INTEGER;
ALTER TABLE comparison_tests ADD COLUMN IF NOT EXISTS mcnemar_c INTEGER;
ALTER TABLE comparison_tests ADD COLUMN IF NOT EXISTS mcnemar_p DOUBLE;
ALTER TABLE comparison_tests ADD COLUMN IF NOT EXISTS mde DOUBLE;
