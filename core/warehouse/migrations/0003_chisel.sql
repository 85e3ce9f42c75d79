-- 0003: lineage and audit tables of the DocsChisel optimizer (core/chisel).

-- Every ground-truth read of the optimizer: which task, which split part, why.
-- The optimizer may read only the optimization part; tests check this table.
CREATE TABLE IF NOT EXISTS chisel_gt_access (
    run_id   VARCHAR,
    task_id  VARCHAR,
    part     VARCHAR,
    purpose  VARCHAR,
    ts       TIMESTAMP,
    PRIMARY KEY (run_id, task_id, purpose)
);

-- One row per optimized tool: profiling numbers, the selection and its cost.
CREATE TABLE IF NOT EXISTS chisel_tools (
    run_id             VARCHAR,
    tool               VARCHAR,
    domain             VARCHAR,
    n_opt              INTEGER,
    n_val              INTEGER,
    base_val_ts        DOUBLE,
    base_opt_ts        DOUBLE,
    best_val_ts        DOUBLE,
    original_doc_id    VARCHAR,
    selected_doc_id    VARCHAR,
    iterations         INTEGER,
    accepted           INTEGER,
    minutes            DOUBLE,
    optimizer_tokens   BIGINT,
    agent_tokens       BIGINT,
    doc_tokens_before  INTEGER,
    doc_tokens_after   INTEGER,
    detail             JSON,
    created_at         TIMESTAMP,
    PRIMARY KEY (run_id, tool)
);

-- Where each candidate was evaluated and which traces its plan came from.
ALTER TABLE candidates ADD COLUMN IF NOT EXISTS val_run VARCHAR;
ALTER TABLE candidates ADD COLUMN IF NOT EXISTS opt_run VARCHAR;
ALTER TABLE candidates ADD COLUMN IF NOT EXISTS engine VARCHAR;
ALTER TABLE candidates ADD COLUMN IF NOT EXISTS source_episodes JSON;
ALTER TABLE candidates ADD COLUMN IF NOT EXISTS detail JSON;
ALTER TABLE plans ADD COLUMN IF NOT EXISTS source_episodes JSON;
ALTER TABLE plans ADD COLUMN IF NOT EXISTS detail JSON;
