-- Reports that do not grow with the ledger.
--
-- The host ratios of a project's successful run: each host's estimated and
-- granted credit over the run's report window, stored when the run commits
-- (only the latest run of a project keeps its rows). The reconciliation
-- report, its overview and the pages of hosts read these rows, one per host,
-- instead of summing the ledgers' rows of every host over the window.
CREATE TABLE reconcile_ratios (
    run_id         bigint           NOT NULL REFERENCES reconcile_runs (id) ON DELETE CASCADE,
    host_id        bigint           NOT NULL REFERENCES hosts (id) ON DELETE CASCADE,
    user_id        bigint           NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    project_hostid bigint           NOT NULL,
    estimated      double precision NOT NULL,
    granted        double precision NOT NULL,
    -- granted ÷ estimated; NULL when nothing was estimated.
    ratio          double precision,
    -- user_id in the key: the rows are a volunteer's (see distribution_test.go).
    PRIMARY KEY (run_id, user_id, host_id)
);
-- The pages' orders (by host, by ratio either way, by granted and by
-- estimated credit) and the flags' ratio ranges read these indexes, a page
-- at a time; the last serves deletions of hosts.
CREATE INDEX reconcile_ratios_host_order_idx ON reconcile_ratios (run_id, host_id);
CREATE INDEX reconcile_ratios_ratio_idx ON reconcile_ratios (run_id, ratio, host_id);
CREATE INDEX reconcile_ratios_granted_idx ON reconcile_ratios (run_id, granted DESC, host_id);
CREATE INDEX reconcile_ratios_estimated_idx ON reconcile_ratios (run_id, estimated DESC, host_id);
CREATE INDEX reconcile_ratios_host_idx ON reconcile_ratios (host_id);

-- The window a run's stored ratios cover, and their summary: how many
-- hosts, their estimated and granted credit, the median of their ratios.
-- NULL until the ratios are stored.
ALTER TABLE reconcile_runs
    ADD COLUMN ratios_from     date,
    ADD COLUMN ratios_to       date,
    ADD COLUMN ratio_hosts     bigint,
    ADD COLUMN ratio_estimated double precision,
    ADD COLUMN ratio_granted   double precision,
    ADD COLUMN ratio_median    double precision;
