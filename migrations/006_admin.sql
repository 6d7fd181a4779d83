-- The admin console: an audit log of every admin change, disabled
-- accounts, the science area of catalog entries, and small counters for the
-- system overview (so that no page view scans the ledger).

CREATE TABLE audit_log (
    id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    at            timestamptz NOT NULL DEFAULT now(),
    -- Who: an admin's email, or "os:NAME" for the command line.
    actor         text        NOT NULL CHECK (actor <> ''),
    actor_user_id bigint      REFERENCES users (id) ON DELETE SET NULL,
    kind          text        NOT NULL CHECK (kind IN ('project_add', 'project_edit', 'project_status',
                                                      'project_import', 'run_now', 'user_disable',
                                                      'user_enable', 'admin_grant')),
    -- What: "project 3", "user 7", ...
    subject       text        NOT NULL DEFAULT '',
    before        jsonb,
    after         jsonb
);
CREATE INDEX audit_log_at_idx ON audit_log (at DESC, id DESC);

-- A disabled account keeps everything; its RPCs and web log-ins are refused.
ALTER TABLE users ADD COLUMN disabled_at timestamptz;

-- The project's science area, as BOINC's project list gives it.
ALTER TABLE projects ADD COLUMN area text NOT NULL DEFAULT '';

-- RPCs per hour by outcome, added to periodically by each instance.
CREATE TABLE rpc_hourly (
    hour    timestamptz NOT NULL,
    outcome text        NOT NULL CHECK (outcome IN ('ok', 'error_reply', 'unavailable')),
    count   bigint      NOT NULL DEFAULT 0 CHECK (count >= 0),
    PRIMARY KEY (hour, outcome)
);

-- Estimated and clamped credit per project per day, rolled up from the
-- recent days of the ledger periodically.
CREATE TABLE credit_daily (
    project_id    bigint NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    day           date   NOT NULL,
    ec_micro      bigint NOT NULL DEFAULT 0,
    clamped_micro bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (project_id, day)
);

-- A project imported from BOINC's list has no account yet; it may not be
-- active until it has one.
ALTER TABLE projects DROP CONSTRAINT projects_authenticator_check;
ALTER TABLE projects ADD CONSTRAINT projects_authenticator_check
    CHECK (authenticator <> '' OR status <> 'active');

-- Counts that take a scan (active hosts, volunteers), refreshed by the
-- periodic rollup so that the overview page only reads them.
CREATE TABLE system_counts (
    name  text        PRIMARY KEY,
    value bigint      NOT NULL,
    at    timestamptz NOT NULL DEFAULT now()
);

-- Admin lookup by email or name prefix, host CPID, domain name prefix and
-- a project's host id. None of these columns changes in a steady-state
-- RPC, so the RPC's updates stay HOT.
CREATE INDEX users_email_prefix_idx ON users (lower(email) text_pattern_ops);
CREATE INDEX users_name_prefix_idx ON users (lower(name) text_pattern_ops);
CREATE INDEX hosts_cpid_idx ON hosts (host_cpid);
CREATE INDEX hosts_domain_prefix_idx ON hosts (lower(domain_name) text_pattern_ops);
CREATE INDEX host_projects_hostid_idx ON host_projects (project_hostid) WHERE project_hostid > 0;
