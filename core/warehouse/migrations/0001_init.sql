-- 0001: the trace warehouse. Traces (episodes, events) are immutable; everything
-- derived from them (diagnoses, plans, candidates, approvals) is new rows that
-- reference them by id.

CREATE TABLE IF NOT EXISTS benchmarks (
    name        VARCHAR PRIMARY KEY,
    info        JSON,
    created_at  TIMESTAMP
);

CREATE TABLE IF NOT EXISTS tools (
    benchmark        VARCHAR,
    tool             VARCHAR,
    domain           VARCHAR,
    original_doc_id  VARCHAR,
    PRIMARY KEY (benchmark, tool)
);

-- Every version of every tool's documentation, stored once by content hash.
CREATE TABLE IF NOT EXISTS doc_versions (
    doc_id         VARCHAR PRIMARY KEY,
    tool           VARCHAR NOT NULL,
    doc            JSON NOT NULL,
    fields         VARCHAR[],
    tokens         INTEGER,
    origin         VARCHAR,
    parent_doc_id  VARCHAR,
    created_at     TIMESTAMP
);

CREATE TABLE IF NOT EXISTS doc_sets (
    docset_id   VARCHAR PRIMARY KEY,
    name        VARCHAR,
    benchmark   VARCHAR,
    origin      VARCHAR,
    meta        JSON,
    created_at  TIMESTAMP
);

CREATE TABLE IF NOT EXISTS doc_set_members (
    docset_id  VARCHAR,
    tool       VARCHAR,
    doc_id     VARCHAR,
    PRIMARY KEY (docset_id, tool)
);

CREATE TABLE IF NOT EXISTS tasks (
    benchmark  VARCHAR,
    task_id    VARCHAR,
    domain     VARCHAR,
    query      VARCHAR,
    gold       JSON,
    tools      VARCHAR[],
    meta       JSON,
    PRIMARY KEY (benchmark, task_id)
);

CREATE TABLE IF NOT EXISTS splits (
    split_id    VARCHAR PRIMARY KEY,
    benchmark   VARCHAR,
    seed        INTEGER,
    ratios      JSON,
    created_at  TIMESTAMP
);

CREATE TABLE IF NOT EXISTS split_assignments (
    split_id  VARCHAR,
    task_id   VARCHAR,
    part      VARCHAR,   -- opt | val | test
    PRIMARY KEY (split_id, task_id)
);

CREATE TABLE IF NOT EXISTS agent_configs (
    config_id   VARCHAR PRIMARY KEY,
    config      JSON,
    created_at  TIMESTAMP
);

-- One self-describing record per run: full config, package versions, git revision.
CREATE TABLE IF NOT EXISTS runs (
    run_id       VARCHAR PRIMARY KEY,
    kind         VARCHAR,   -- eval | optimize | study | compare | import | baseline | expansion
    name         VARCHAR,
    benchmark    VARCHAR,
    config       JSON,
    versions     JSON,
    git_rev      VARCHAR,
    parent_run   VARCHAR,
    created_at   TIMESTAMP
);

-- Run status is a log, so a run row is never updated.
CREATE TABLE IF NOT EXISTS run_status (
    run_id   VARCHAR,
    status   VARCHAR,   -- started | finished | failed | cancelled
    detail   JSON,
    ts       TIMESTAMP
);

CREATE TABLE IF NOT EXISTS episodes (
    episode_id    VARCHAR PRIMARY KEY,
    run_id        VARCHAR,
    benchmark     VARCHAR,
    task_id       VARCHAR,
    domain        VARCHAR,
    docset_id     VARCHAR,
    config_id     VARCHAR,
    "repeat"      INTEGER,
    model         VARCHAR,
    paradigm      VARCHAR,
    variant       VARCHAR,
    split         VARCHAR,
    success       BOOLEAN,
    tool_correct  BOOLEAN,
    score         JSON,
    calls         JSON,
    final_answer  VARCHAR,
    error         VARCHAR,
    error_class   VARCHAR,
    n_steps       INTEGER,
    tokens_in     BIGINT,
    tokens_out    BIGINT,
    cost          DOUBLE,
    latency_s     DOUBLE,
    source        VARCHAR,
    started_at    TIMESTAMP,
    finished_at   TIMESTAMP
);

-- Which runs used which episodes (an episode finished by an earlier identical
-- run is reused, not duplicated).
CREATE TABLE IF NOT EXISTS run_episodes (
    run_id      VARCHAR,
    episode_id  VARCHAR,
    PRIMARY KEY (run_id, episode_id)
);

CREATE TABLE IF NOT EXISTS events (
    episode_id  VARCHAR,
    seq         INTEGER,
    kind        VARCHAR,
    tool        VARCHAR,
    args        JSON,
    output      VARCHAR,
    error       VARCHAR,
    text        VARCHAR,
    payload     JSON,
    tokens_in   INTEGER,
    tokens_out  INTEGER,
    latency_s   DOUBLE,
    cost        DOUBLE,
    cache_hit   BOOLEAN,
    ts          TIMESTAMP,
    PRIMARY KEY (episode_id, seq)
);

CREATE TABLE IF NOT EXISTS llm_cache (
    key         VARCHAR PRIMARY KEY,
    model       VARCHAR,
    request     JSON,
    response    JSON,
    tokens_in   INTEGER,
    tokens_out  INTEGER,
    cost        DOUBLE,
    created_at  TIMESTAMP
);

CREATE TABLE IF NOT EXISTS llm_calls (
    call_id     VARCHAR PRIMARY KEY,
    run_id      VARCHAR,
    purpose     VARCHAR,
    model       VARCHAR,
    tokens_in   INTEGER,
    tokens_out  INTEGER,
    cost        DOUBLE,
    latency_s   DOUBLE,
    cache_hit   BOOLEAN,
    error       VARCHAR,
    ts          TIMESTAMP
);

CREATE TABLE IF NOT EXISTS evaluations (
    eval_id     VARCHAR PRIMARY KEY,
    run_id      VARCHAR,
    docset_id   VARCHAR,
    split       VARCHAR,
    scope       VARCHAR,   -- overall | domain | tool
    key         VARCHAR,
    n           INTEGER,
    ts_mean     DOUBLE,
    tc_mean     DOUBLE,
    detail      JSON,
    created_at  TIMESTAMP
);

CREATE TABLE IF NOT EXISTS diagnoses (
    diagnosis_id  VARCHAR PRIMARY KEY,
    run_id        VARCHAR,
    tool          VARCHAR,
    iteration     INTEGER,
    episode_id    VARCHAR,
    doc_id        VARCHAR,
    engine        VARCHAR,
    failure_class VARCHAR,
    doc_related   BOOLEAN,
    evidence      VARCHAR,
    mismatch      VARCHAR,
    fields        VARCHAR[],
    detail        JSON,
    created_at    TIMESTAMP
);

CREATE TABLE IF NOT EXISTS plans (
    plan_id      VARCHAR PRIMARY KEY,
    run_id       VARCHAR,
    tool         VARCHAR,
    iteration    INTEGER,
    scope        VARCHAR,   -- trace | merged
    diagnosis_id VARCHAR,
    operations   JSON,
    created_at   TIMESTAMP
);

CREATE TABLE IF NOT EXISTS candidates (
    candidate_id   VARCHAR PRIMARY KEY,
    run_id         VARCHAR,
    tool           VARCHAR,
    iteration      INTEGER,
    doc_id         VARCHAR,
    parent_doc_id  VARCHAR,
    plan_id        VARCHAR,
    val_ts         DOUBLE,
    base_val_ts    DOUBLE,
    opt_ts         DOUBLE,
    accepted       BOOLEAN,
    regressions    JSON,
    new_failures   JSON,
    tokens         INTEGER,
    created_at     TIMESTAMP
);

CREATE TABLE IF NOT EXISTS memories (
    memory_id   VARCHAR PRIMARY KEY,
    run_id      VARCHAR,
    domain      VARCHAR,
    kind        VARCHAR,   -- diagnosis | planning | generation
    tool        VARCHAR,
    iteration   INTEGER,
    content     JSON,
    created_at  TIMESTAMP
);

CREATE TABLE IF NOT EXISTS selections (
    run_id      VARCHAR,
    tool        VARCHAR,
    doc_id      VARCHAR,
    reason      VARCHAR,
    created_at  TIMESTAMP,
    PRIMARY KEY (run_id, tool)
);

-- Human review: approve / reject / edit / label, append-only audit trail.
CREATE TABLE IF NOT EXISTS approvals (
    approval_id  VARCHAR PRIMARY KEY,
    doc_id       VARCHAR,
    tool         VARCHAR,
    action       VARCHAR,
    label        VARCHAR,
    reviewer     VARCHAR,
    reason       VARCHAR,
    run_id       VARCHAR,
    created_at   TIMESTAMP
);

CREATE TABLE IF NOT EXISTS field_impact (
    study_id     VARCHAR,
    benchmark    VARCHAR,
    domain       VARCHAR,
    model        VARCHAR,
    paradigm     VARCHAR,
    field        VARCHAR,
    operation    VARCHAR,   -- add | remove
    n_tools      INTEGER,
    base_ts      DOUBLE,
    variant_ts   DOUBLE,
    delta_pp     DOUBLE,
    ci_low       DOUBLE,
    ci_high      DOUBLE,
    repeats      INTEGER,
    docset_id    VARCHAR,
    run_id       VARCHAR,
    created_at   TIMESTAMP
);

CREATE TABLE IF NOT EXISTS jobs (
    job_id      VARCHAR PRIMARY KEY,
    kind        VARCHAR,
    params      JSON,
    pid         INTEGER,
    created_at  TIMESTAMP
);

-- Job progress is a log too: the latest row per job is its state.
CREATE TABLE IF NOT EXISTS job_events (
    job_id    VARCHAR,
    status    VARCHAR,   -- queued | running | done | failed | cancel_requested | cancelled
    done      INTEGER,
    total     INTEGER,
    message   VARCHAR,
    ts        TIMESTAMP
);

CREATE INDEX IF NOT EXISTS idx_episodes_run ON episodes(run_id);
CREATE INDEX IF NOT EXISTS idx_episodes_task ON episodes(benchmark, task_id);
