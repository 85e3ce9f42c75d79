-- 0006: the method comparison harness (`docschisel compare`, core/study/compare.py):
-- OG / EasyTool / DRAFT / DocsChisel on the same held-out test tasks.
-- Append-only: a comparison's state is its latest `comparisons` row; each finished
-- computation is a result snapshot (`result_id`, a hash of its rows), so re-running an
-- unchanged comparison writes nothing new and a changed one adds a new snapshot.

-- One row per state change of a comparison (started | finished | cancelled).
CREATE TABLE IF NOT EXISTS comparisons (
    compare_id  VARCHAR,
    status      VARCHAR,
    result_id   VARCHAR,     -- the snapshot a finished row points to; NULL otherwise
    benchmark   VARCHAR,
    spec        JSON,        -- CompareSpec, whose hash is compare_id
    split_id    VARCHAR,
    task_ids    VARCHAR[],   -- the test tasks every method was evaluated on
    detail      JSON,
    created_at  TIMESTAMP
);

-- Per method (og, et, drt, dc, dc:<optimizer model>): TS / TC distributions over the
-- (optimization run × evaluation run) points, and the efficiency columns (Table III).
CREATE TABLE IF NOT EXISTS comparison_methods (
    result_id              VARCHAR,
    compare_id             VARCHAR,
    method                 VARCHAR,
    label                  VARCHAR,
    optimizer_model        VARCHAR,
    n_points               INTEGER,
    n_docsets              INTEGER,
    n_tasks                INTEGER,
    ts_mean                DOUBLE,
    ts_median              DOUBLE,
    ts_iqr                 DOUBLE,
    tc_mean                DOUBLE,
    tc_median              DOUBLE,
    tc_iqr                 DOUBLE,
    doc_tokens             DOUBLE,   -- mean doc length over the tools offered on the test tasks
    tools_optimized        DOUBLE,   -- mean over optimization runs
    opt_tokens_per_tool    DOUBLE,   -- optimizer / baseline LLM tokens
    agent_tokens_per_tool  DOUBLE,   -- target-agent tokens spent re-evaluating candidates (DC)
    minutes_per_tool       DOUBLE,
    points                 JSON,     -- [{opt_run, eval_run, ts, tc, n, run_id, docset_id}]
    created_at             TIMESTAMP,
    PRIMARY KEY (result_id, method)
);

-- DocsChisel against each other method: relative improvement of the means (the paper's %),
-- two-sided Mann–Whitney U of the point distributions, Holm-corrected within each metric.
-- versus = 'baselines' compares with the mean of the ET and DRT means (no test).
CREATE TABLE IF NOT EXISTS comparison_tests (
    result_id     VARCHAR,
    compare_id    VARCHAR,
    metric        VARCHAR,   -- ts | tc
    method        VARCHAR,   -- dc (or dc:<model>)
    versus        VARCHAR,
    method_mean   DOUBLE,
    versus_mean   DOUBLE,
    relative_pct  DOUBLE,
    u             DOUBLE,
    p             DOUBLE,
    p_holm        DOUBLE,
    test          VARCHAR,   -- exact | asymptotic
    n1            INTEGER,
    n2            INTEGER,
    created_at    TIMESTAMP,
    PRIMARY KEY (result_id, metric, method, versus)
);

-- Iteration budget (Fig. 9) and memory ablation (Fig. 10): test TS / TC of the doc set
-- DocsChisel would have selected with a budget of k iterations, per optimization run.
CREATE TABLE IF NOT EXISTS comparison_curves (
    result_id      VARCHAR,
    compare_id     VARCHAR,
    series         VARCHAR,   -- memory | no-memory
    opt_run        INTEGER,
    budget         INTEGER,
    ts             DOUBLE,
    tc             DOUBLE,
    n_episodes     INTEGER,
    changed_tools  INTEGER,
    docset_id      VARCHAR,
    optimize_run   VARCHAR,
    created_at     TIMESTAMP,
    PRIMARY KEY (result_id, series, opt_run, budget)
);
