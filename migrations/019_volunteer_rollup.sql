-- A third rollup, per (volunteer, project, day), so that a volunteer's
-- dashboard reads about a thousand rows a year instead of one per
-- computer, project and day. The periodic rollup folds it with the other
-- two (accounting/store_rollups.go), for the days it settles. It covers
-- the days whose per-host rows are kept (from ledger_detail_from() on);
-- the retired days stay in ledger_volunteer_days.
-- Readers take it for the settled days (before rollup_settled_before()
-- and not marked in ledger_dirty_days) and the ledger for the others, so
-- what they show is the ledger's sums at every moment.
CREATE TABLE rollup_volunteer_days (
    user_id          bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    project_id       bigint NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    day              date   NOT NULL,
    cpu_ec_micro     bigint NOT NULL DEFAULT 0,
    cpu_time_micro   bigint NOT NULL DEFAULT 0,
    gpu_ec_micro     bigint NOT NULL DEFAULT 0,
    gpu_time_micro   bigint NOT NULL DEFAULT 0,
    njobs_success    bigint NOT NULL DEFAULT 0,
    njobs_error      bigint NOT NULL DEFAULT 0,
    clamped_cpu_ec_micro   bigint NOT NULL DEFAULT 0,
    clamped_cpu_time_micro bigint NOT NULL DEFAULT 0,
    clamped_gpu_ec_micro   bigint NOT NULL DEFAULT 0,
    clamped_gpu_time_micro bigint NOT NULL DEFAULT 0,
    clamped_njobs_success  bigint NOT NULL DEFAULT 0,
    clamped_njobs_error    bigint NOT NULL DEFAULT 0,
    granted_micro    bigint NOT NULL DEFAULT 0,
    -- The volunteer's hosts with a ledger row that day for the project.
    hosts            bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (user_id, day, project_id)
);
CREATE INDEX rollup_volunteer_days_day_idx ON rollup_volunteer_days (day);

-- Until a round has folded a day, readers take that day from the ledger:
-- the first round after the upgrade folds every day of the history. The
-- days with ledger rows are those of rollup_days, but for the days pending
-- a round (already read from the ledger).
INSERT INTO ledger_dirty_days (day)
    SELECT day FROM rollup_days WHERE day >= ledger_detail_from() ON CONFLICT DO NOTHING;
