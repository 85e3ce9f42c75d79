-- 0007: figures measured by the scripts under bench/ (speed, memory, accuracy probes), so the
-- results document is generated from stored measurements, never typed by hand.
-- One row per (measurement, subject, metric); a measurement is one script run (`bench_id`).
CREATE TABLE IF NOT EXISTS bench_results (
    bench_id     VARCHAR,     -- hash of the script, its arguments and the time it ran
    bench        VARCHAR,     -- the script, e.g. local_model
    subject      VARCHAR,     -- what was measured, e.g. local/qwen2.5-coder-0.5b
    metric       VARCHAR,     -- e.g. prompt_tok_per_cpu_s
    value        DOUBLE,
    detail       JSON,        -- counts, units and conditions behind the value
    host         JSON,        -- cores, load average, CPU kernels
    measured_at  TIMESTAMP,
    PRIMARY KEY (bench_id, subject, metric)
);
