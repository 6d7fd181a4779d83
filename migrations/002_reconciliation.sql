-- Reconciliation with the credit exports of BOINC projects: each run, the
-- credit each matched host had in each export, the confirmed ledger derived
-- from successive exports, and each run's orphans and missing hosts.

-- The project's user id of Cobble's shared account: hosts of that user that
-- Cobble does not know are orphans. Learned from matched hosts when unset.
ALTER TABLE projects ADD COLUMN account_userid bigint;

-- The validators of each export file last fetched, for conditional GET.
CREATE TABLE export_files (
    project_id    bigint NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    name          text   NOT NULL,  -- tables.xml, host.gz, host_0.gz, ...
    etag          text   NOT NULL DEFAULT '',
    last_modified text   NOT NULL DEFAULT '',
    PRIMARY KEY (project_id, name)
);

CREATE TABLE reconcile_runs (
    id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    project_id    bigint      NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    started_at    timestamptz NOT NULL,
    finished_at   timestamptz,
    status        text        NOT NULL CHECK (status IN ('running', 'ok', 'unchanged', 'failed')),
    source        text        NOT NULL,  -- the stats URL or the local file read
    -- The export's own time (tables.xml update_time).
    export_time   timestamptz,
    hosts_scanned bigint      NOT NULL DEFAULT 0,
    hosts_matched bigint      NOT NULL DEFAULT 0,
    orphans       bigint      NOT NULL DEFAULT 0,
    missing       bigint      NOT NULL DEFAULT 0,
    error         text        NOT NULL DEFAULT ''
);
CREATE INDEX reconcile_runs_project_idx ON reconcile_runs (project_id, started_at DESC);

-- The credit each matched host had in each export.
CREATE TABLE export_credit (
    host_id        bigint           NOT NULL,
    project_id     bigint           NOT NULL,
    export_time    timestamptz      NOT NULL,
    run_id         bigint           NOT NULL REFERENCES reconcile_runs (id) ON DELETE CASCADE,
    project_hostid bigint           NOT NULL,
    total_credit   double precision NOT NULL,
    expavg_credit  double precision NOT NULL,
    expavg_time    double precision NOT NULL,
    PRIMARY KEY (host_id, project_id, export_time),
    FOREIGN KEY (host_id, project_id) REFERENCES host_projects (host_id, project_id) ON DELETE CASCADE
);

-- The confirmed ledger: credit the projects granted each (host, project),
-- per day in the volunteer's time zone, from the difference of successive
-- exports' total_credit. In millionths of a Cobblestone.
CREATE TABLE confirmed_ledger (
    host_id       bigint NOT NULL,
    project_id    bigint NOT NULL,
    day           date   NOT NULL,
    user_id       bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    granted_micro bigint NOT NULL CHECK (granted_micro >= 0),
    PRIMARY KEY (host_id, project_id, day),
    FOREIGN KEY (host_id, project_id) REFERENCES host_projects (host_id, project_id) ON DELETE CASCADE
);
CREATE INDEX confirmed_ledger_user_day_idx ON confirmed_ledger (user_id, day);
CREATE INDEX confirmed_ledger_project_day_idx ON confirmed_ledger (project_id, day);

-- Hosts in an export under Cobble's account that Cobble does not know.
CREATE TABLE reconcile_orphans (
    run_id         bigint           NOT NULL REFERENCES reconcile_runs (id) ON DELETE CASCADE,
    project_hostid bigint           NOT NULL,
    userid         bigint           NOT NULL,
    total_credit   double precision NOT NULL,
    expavg_credit  double precision NOT NULL,
    host_cpid      text             NOT NULL DEFAULT '',
    PRIMARY KEY (run_id, project_hostid)
);

-- Cobble hosts attached to the project that an export did not list.
CREATE TABLE reconcile_missing (
    run_id         bigint NOT NULL REFERENCES reconcile_runs (id) ON DELETE CASCADE,
    host_id        bigint NOT NULL REFERENCES hosts (id) ON DELETE CASCADE,
    project_hostid bigint NOT NULL,
    PRIMARY KEY (run_id, host_id)
);
