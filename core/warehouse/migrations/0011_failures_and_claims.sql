-- 0011: failures that are not the agent's, tool-event error classes, episode claims.

-- The kind of a failed tool call (unknown_tool, bad_arguments, tool_crash, tool_timeout,
-- too_many_calls, tool_error), so traces can be filtered by it instead of parsing messages.
ALTER TABLE events ADD COLUMN IF NOT EXISTS error_class VARCHAR;

-- An attempt that failed for a reason outside the agent (a provider outage after retries, a
-- sandbox that could not start). It is not an episode: TS/TC never count it, and the next run of
-- the same command runs the episode again. Each attempt is its own row.
CREATE TABLE IF NOT EXISTS infra_failures (
    failure_id   VARCHAR PRIMARY KEY,
    episode_id   VARCHAR,
    run_id       VARCHAR,
    benchmark    VARCHAR,
    task_id      VARCHAR,
    "repeat"     INTEGER,
    model        VARCHAR,
    error_class  VARCHAR,
    error        VARCHAR,
    ts           TIMESTAMP
);

-- Which process is running an episode right now, so two identical runs started together do the
-- work once: a run claims episodes before running them and skips those another live process
-- holds (and those finished meanwhile). A claim whose owner process is gone is taken over.
CREATE TABLE IF NOT EXISTS episode_claims (
    episode_id  VARCHAR PRIMARY KEY,
    run_id      VARCHAR,
    owner       VARCHAR,   -- host:pid:start-time of the claiming process
    claimed_at  TIMESTAMP
);
