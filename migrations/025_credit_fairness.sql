-- Is credit fair? (docs/CREDIT.md) Each successful reconciliation run
-- stores, per fairness window, the credit of the project's verified hosts:
-- hosts whose export record the run verified as theirs. The periodic
-- measure reads only these rows and stores aggregates per window, which
-- the public /credit page and its downloads serve.

-- One verified host's credit on one project over a window that ends the
-- day before the run's export (and starts no earlier than the host's first
-- export of the project, whose credit is the baseline). Replaced, per
-- project, by each successful run.
CREATE TABLE credit_hosts (
    project_id    bigint           NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    window_days   integer          NOT NULL CHECK (window_days > 0),
    user_id       bigint           NOT NULL,
    host_id       bigint           NOT NULL,
    run_id        bigint           NOT NULL REFERENCES reconcile_runs (id) ON DELETE CASCADE,
    estimated     double precision NOT NULL CHECK (estimated >= 0),
    estimated_gpu double precision NOT NULL CHECK (estimated_gpu >= 0),
    cpu_hours     double precision NOT NULL CHECK (cpu_hours >= 0),
    gpu_hours     double precision NOT NULL CHECK (gpu_hours >= 0),
    granted       double precision NOT NULL CHECK (granted >= 0),
    PRIMARY KEY (project_id, window_days, user_id, host_id),
    FOREIGN KEY (user_id, host_id) REFERENCES hosts (user_id, id) ON DELETE CASCADE
);
CREATE INDEX credit_hosts_host_idx ON credit_hosts (host_id);

-- When the measure of a window was last computed, and over which days.
CREATE TABLE credit_measures (
    window_days integer     PRIMARY KEY CHECK (window_days > 0),
    computed_at timestamptz NOT NULL,
    hosts       integer     NOT NULL,
    volunteers  integer     NOT NULL
);

-- Each project's figures over a window. Below the data threshold only the
-- counts are kept (enough_data false, the figures NULL).
CREATE TABLE credit_projects (
    window_days          integer          NOT NULL REFERENCES credit_measures (window_days) ON DELETE CASCADE,
    project_id           bigint           NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    hosts                integer          NOT NULL,
    volunteers           integer          NOT NULL,
    exports              integer          NOT NULL,
    enough_data          boolean          NOT NULL,
    ratio_median         double precision,
    ci_low               double precision,
    ci_high              double precision,
    iqr_low              double precision,
    iqr_high             double precision,
    position             double precision,
    share_above          double precision,
    gpu_hosts            integer          NOT NULL DEFAULT 0,
    cpu_hosts            integer          NOT NULL DEFAULT 0,
    gpu_vs_cpu           double precision,
    granted_per_cpu_hour double precision,
    granted_per_gpu_hour double precision,
    PRIMARY KEY (window_days, project_id),
    CHECK (enough_data OR (ratio_median IS NULL AND share_above IS NULL AND gpu_vs_cpu IS NULL))
);

-- Each ordered pair of projects over a window: from hosts verified on
-- both, the median of (ratio on a ÷ ratio on b).
CREATE TABLE credit_pairs (
    window_days  integer          NOT NULL REFERENCES credit_measures (window_days) ON DELETE CASCADE,
    a_project_id bigint           NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    b_project_id bigint           NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    hosts        integer          NOT NULL,
    volunteers   integer          NOT NULL,
    enough_data  boolean          NOT NULL,
    ratio_median double precision,
    ci_low       double precision,
    ci_high      double precision,
    PRIMARY KEY (window_days, a_project_id, b_project_id),
    CHECK (a_project_id <> b_project_id),
    CHECK (enough_data OR ratio_median IS NULL)
);
