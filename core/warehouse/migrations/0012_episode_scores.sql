-- 0012: every score an episode has had, one row per version of the scoring rules.
-- An episode's trace (its calls, events and answer) never changes. Its score is derived from the
-- trace: when the scoring rules change, `docschisel rescore` scores the stored trace again. The
-- episodes row then carries the score under the current rules (so every reader, and every run that
-- reuses the episode, sees one consistent definition), and this table keeps each earlier score too.
-- Version 1 is what episodes stored before scores carried their version (`score.scoring`).
CREATE TABLE IF NOT EXISTS episode_scores (
    episode_id    VARCHAR,
    scoring       INTEGER,   -- version of the scoring rules (core.benchmarks.base.SCORING_VERSION)
    success       BOOLEAN,
    tool_correct  BOOLEAN,
    score         JSON,
    scored_at     TIMESTAMP,
    PRIMARY KEY (episode_id, scoring)
);
