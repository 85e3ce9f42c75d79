-- 0010: EvoSOP (core/sop): SOPs synthesised from trajectories, and each epoch's toolset, usage,
-- reviews and decisions. The evolve run itself is a `runs` row of kind 'sop'; its evaluations are
-- ordinary runs and episodes (benchmark '<base>+sop'). Append-only and keyed, so a resumed run
-- writes nothing twice.

-- One SOP version: its schema (a ToolDoc) and code; identity = hash of name, doc and code.
CREATE TABLE IF NOT EXISTS sops (
    sop_id      VARCHAR PRIMARY KEY,
    name        VARCHAR,
    tool        VARCHAR,     -- the dispatch key, sop.<name>
    doc         JSON,
    code        VARCHAR,
    uses        VARCHAR[],   -- the atomic tools it calls, in order
    origin      VARCHAR,     -- composer | llm | merge | manual
    parents     VARCHAR[],   -- the SOPs a merged composite generalises
    sources     VARCHAR[],   -- episodes (or gold:<task>) it was built from
    pattern     VARCHAR,
    detail      JSON,
    created_at  TIMESTAMP
);

-- One epoch of one evolve run: the toolset evaluated on the training tasks, what changed, the scores.
CREATE TABLE IF NOT EXISTS sop_epochs (
    run_id      VARCHAR,
    epoch       INTEGER,     -- 0: atomic tools only (the initial trajectories)
    toolset_id  VARCHAR,     -- of the evaluated toolset
    evaluated   VARCHAR[],
    kept        VARCHAR[],   -- after the review (the next epoch starts from these)
    added       VARCHAR[],
    merged      VARCHAR[],
    pruned      VARCHAR[],
    eval_run    VARCHAR,
    n_episodes  INTEGER,
    ts          DOUBLE,
    tc          DOUBLE,
    rounds      DOUBLE,      -- model calls per episode (reasoning rounds)
    tokens      DOUBLE,      -- agent tokens per episode
    sop_calls   INTEGER,
    detail      JSON,
    created_at  TIMESTAMP,
    PRIMARY KEY (run_id, epoch)
);

-- Per epoch and SOP: invocations and how the reviewer labelled them (Fig. 4's #success/#total).
CREATE TABLE IF NOT EXISTS sop_usage (
    run_id       VARCHAR,
    epoch        INTEGER,
    sop_id       VARCHAR,
    invocations  INTEGER,
    successes    INTEGER,    -- invocations without a defect in episodes that passed
    optimal      INTEGER,
    partial      INTEGER,
    neutral      INTEGER,
    negative     INTEGER,
    defects      INTEGER,
    episodes     INTEGER,
    tasks        INTEGER,
    detail       JSON,
    created_at   TIMESTAMP,
    PRIMARY KEY (run_id, epoch, sop_id)
);

-- One review of one SOP invocation (labels are not exclusive), with its justification.
CREATE TABLE IF NOT EXISTS sop_reviews (
    review_id      VARCHAR PRIMARY KEY,
    run_id         VARCHAR,
    epoch          INTEGER,
    sop_id         VARCHAR,
    episode_id     VARCHAR,
    task_id        VARCHAR,
    seq            INTEGER,  -- the SOP call's event in the episode
    labels         VARCHAR[],
    justification  VARCHAR,
    engine         VARCHAR,
    detail         JSON,
    created_at     TIMESTAMP
);

-- What happened to an SOP in an epoch: added | merged | kept | pruned | rejected, and why.
CREATE TABLE IF NOT EXISTS sop_decisions (
    run_id      VARCHAR,
    epoch       INTEGER,
    sop_id      VARCHAR,
    action      VARCHAR,
    reason      VARCHAR,
    detail      JSON,
    created_at  TIMESTAMP,
    PRIMARY KEY (run_id, epoch, sop_id, action)
);

-- A finished evolve run: the selected epoch and its toolset, training and held-out test scores
-- beside the atomic tools' on the same tasks and seeds.
CREATE TABLE IF NOT EXISTS sop_results (
    run_id            VARCHAR PRIMARY KEY,
    benchmark         VARCHAR,
    variant           VARCHAR,   -- full | no-merge | no-review | asi
    engine            VARCHAR,
    model             VARCHAR,   -- the target agent's model
    seed              INTEGER,
    best_epoch        INTEGER,
    toolset_id        VARCHAR,
    n_sops            INTEGER,
    train_ts          DOUBLE,
    base_train_ts     DOUBLE,
    test_ts           DOUBLE,
    base_test_ts      DOUBLE,
    test_rounds       DOUBLE,
    base_test_rounds  DOUBLE,
    n_test            INTEGER,
    test_run          VARCHAR,
    base_test_run     VARCHAR,
    detail            JSON,
    created_at        TIMESTAMP
);
