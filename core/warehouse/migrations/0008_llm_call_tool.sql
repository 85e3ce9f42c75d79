-- 0008: the tool an LLM call served (optimizers and baselines label calls per tool), so cost per
-- optimized tool is a GROUP BY instead of matching label suffixes.
ALTER TABLE llm_calls ADD COLUMN IF NOT EXISTS tool VARCHAR;
