-- 0013: an analyst's verdict on a diagnosis (agree, disagree, or a note), one row per verdict.
-- A diagnosis is never edited: an analyst who disagrees adds a row, and the latest row per
-- diagnosis is its current verdict; the review queue counts disputed diagnoses per tool.
CREATE TABLE IF NOT EXISTS diagnosis_verdicts (
    verdict_id    VARCHAR PRIMARY KEY,
    diagnosis_id  VARCHAR,
    run_id        VARCHAR,
    tool          VARCHAR,
    verdict       VARCHAR,   -- agree | disagree | note
    note          VARCHAR,
    reviewer      VARCHAR,
    created_at    TIMESTAMP
);
