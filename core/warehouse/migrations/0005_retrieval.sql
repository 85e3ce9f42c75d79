-- 0005: Tool-REX document expansion (attempts, per-field verdicts, final profiles)
-- and tool-retrieval evaluation (metrics per doc variant and retriever, rankings per query).

-- One generation of one tool's profile; the raw reply is kept whatever it is.
CREATE TABLE IF NOT EXISTS expansion_attempts (
    attempt_id       VARCHAR PRIMARY KEY,
    run_id           VARCHAR,
    benchmark        VARCHAR,
    tool             VARCHAR,
    original_doc_id  VARCHAR,
    attempt          INTEGER,   -- 1 = expansion model, 2 = regeneration by the stronger model
    model            VARCHAR,
    raw              VARCHAR,
    parse_error      VARCHAR,
    error            VARCHAR,
    accepted_fields  VARCHAR[],
    rejected_fields  VARCHAR[],
    tokens_in        INTEGER,
    tokens_out       INTEGER,
    latency_s        DOUBLE,
    created_at       TIMESTAMP
);

-- Every judgement of every field: stage 'rule' or 'llm'; rejections are rows, never hidden.
CREATE TABLE IF NOT EXISTS expansion_verdicts (
    attempt_id   VARCHAR,
    field        VARCHAR,
    stage        VARCHAR,
    accepted     BOOLEAN,
    content      VARCHAR,
    reason       VARCHAR,
    judge_model  VARCHAR,
    created_at   TIMESTAMP,
    PRIMARY KEY (attempt_id, field, stage)
);

-- The accepted profile per tool and the expanded doc version it produced.
CREATE TABLE IF NOT EXISTS expansion_profiles (
    run_id           VARCHAR,
    benchmark        VARCHAR,
    tool             VARCHAR,
    original_doc_id  VARCHAR,
    expanded_doc_id  VARCHAR,
    profile          JSON,
    fields           VARCHAR[],
    sources          JSON,      -- profile field -> attempt number
    regenerated      BOOLEAN,
    created_at       TIMESTAMP,
    PRIMARY KEY (run_id, tool)
);

-- Mean retrieval metrics of one doc variant with one retriever at one cut-off.
CREATE TABLE IF NOT EXISTS retrieval_metrics (
    run_id             VARCHAR,
    benchmark          VARCHAR,
    variant            VARCHAR,   -- original | expanded | add:<field> | out:<field> | <doc set name>
    docset_id          VARCHAR,
    retriever          VARCHAR,   -- bm25 | dense
    k                  INTEGER,
    n_queries          INTEGER,
    n_tools            INTEGER,
    ndcg               DOUBLE,
    recall             DOUBLE,
    comprehensiveness  DOUBLE,
    detail             JSON,
    created_at         TIMESTAMP,
    PRIMARY KEY (run_id, benchmark, variant, retriever, k)
);

-- The top of each query's ranking, for per-query inspection.
CREATE TABLE IF NOT EXISTS retrieval_rankings (
    run_id     VARCHAR,
    benchmark  VARCHAR,
    variant    VARCHAR,
    retriever  VARCHAR,
    qid        VARCHAR,
    ranking    VARCHAR[],
    gold       VARCHAR[],
    ndcg       DOUBLE,   -- at the run's largest k
    created_at TIMESTAMP,
    PRIMARY KEY (run_id, benchmark, variant, retriever, qid)
);
