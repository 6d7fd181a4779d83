-- Each host's credit budget (see accounting/budget.go): the time of its
-- previous accounted RPC and what it may still be credited, per limited
-- quantity. NULL amounts mean a full carry-over of the client's 60 s
-- accumulation step; existing hosts start from their last RPC with that.
ALTER TABLE hosts
    ADD COLUMN budget_at              timestamptz,
    ADD COLUMN budget_cpu_ec_micro    bigint CHECK (budget_cpu_ec_micro >= 0),
    ADD COLUMN budget_cpu_time_micro  bigint CHECK (budget_cpu_time_micro >= 0),
    ADD COLUMN budget_gpu_ec_micro    bigint CHECK (budget_gpu_ec_micro >= 0),
    ADD COLUMN budget_gpu_time_micro  bigint CHECK (budget_gpu_time_micro >= 0),
    -- Job successes and errors together.
    ADD COLUMN budget_jobs            bigint CHECK (budget_jobs >= 0);
UPDATE hosts SET budget_at = last_rpc_at;

-- A stale report: older counters than those stored, arriving late or
-- replayed; nothing is credited and the baseline stays.
ALTER TABLE accounting_events DROP CONSTRAINT accounting_events_kind_check;
ALTER TABLE accounting_events ADD CONSTRAINT accounting_events_kind_check
    CHECK (kind IN ('reset', 'clamp', 'implausible_host', 'bad_counters', 'credit_decrease', 'stale_report'));

-- The email of Cobble's account on the project: an export's host_cpid is
-- md5(the client's host_cpid + that email), which verifies a host's match.
ALTER TABLE projects ADD COLUMN account_email text NOT NULL DEFAULT ''
    CHECK (length(account_email) <= 254);

-- Cobble hosts that reported a project host id whose export record could
-- not be verified as theirs (or that another Cobble host also claims):
-- never credited; listed on the project's report with the reason.
CREATE TABLE reconcile_unverified (
    run_id         bigint NOT NULL REFERENCES reconcile_runs (id) ON DELETE CASCADE,
    host_id        bigint NOT NULL REFERENCES hosts (id) ON DELETE CASCADE,
    user_id        bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    project_hostid bigint NOT NULL,
    reason         text   NOT NULL,
    PRIMARY KEY (run_id, host_id, project_hostid)
);
