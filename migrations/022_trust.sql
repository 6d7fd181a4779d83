-- Computers a volunteer can trust (issue 32).
--
-- A computer can wind down (finish its tasks, fetch no new ones) or pause
-- (suspend its projects) until the volunteer resumes it, or until
-- pause_until, when its next RPC resumes it by itself. The steady-state
-- RPC reads these columns in the query that locks the host, so the state
-- costs no round trip. resume_pending says that the client was told to
-- suspend its projects and has not yet been told to resume them: BOINC
-- clients keep a project suspended until an account manager's reply says
-- <suspend>0</suspend>.
ALTER TABLE hosts
    ADD COLUMN pause_mode text NOT NULL DEFAULT 'none'
        CHECK (pause_mode IN ('none', 'wind_down', 'pause')),
    ADD COLUMN pause_until timestamptz,
    ADD COLUMN resume_pending boolean NOT NULL DEFAULT false;

-- Where a day's number came from: beside each ledger row, how many RPCs
-- added to it and the first and last of them. The RPC's ledger upsert
-- writes them; no per-RPC row is kept. Adding columns to the partitioned
-- parent adds them to every partition, the DEFAULT one included, in the
-- same order, so the partition upkeep's LIKE and SELECT * stay aligned.
ALTER TABLE ledger
    ADD COLUMN reports integer NOT NULL DEFAULT 0,
    ADD COLUMN first_report_at timestamptz,
    ADD COLUMN last_report_at timestamptz;

-- "Something is wrong with this day": a volunteer's report about one day
-- of one project on one of their computers, and the admin's answer. At
-- most a few are open per volunteer (the store checks, under a lock on
-- the volunteer).
CREATE TABLE day_reports (
    id          bigint      GENERATED ALWAYS AS IDENTITY,
    user_id     bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    host_id     bigint      NOT NULL,
    project_id  bigint      NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    day         date        NOT NULL,
    text        text        NOT NULL CHECK (text <> '' AND length(text) <= 1000),
    created_at  timestamptz NOT NULL,
    mail_answer boolean     NOT NULL DEFAULT false,
    answer      text        NOT NULL DEFAULT '' CHECK (length(answer) <= 2000),
    answered_at timestamptz,
    answered_by text        NOT NULL DEFAULT '', -- the admin's name, as the audit log has it
    closed_at   timestamptz,
    PRIMARY KEY (id, user_id),
    FOREIGN KEY (host_id, user_id) REFERENCES hosts (id, user_id) ON DELETE CASCADE
);
CREATE INDEX day_reports_user_idx ON day_reports (user_id, host_id, created_at);
CREATE INDEX day_reports_open_idx ON day_reports (created_at) WHERE closed_at IS NULL;

ALTER TABLE audit_log DROP CONSTRAINT audit_log_kind_check;
ALTER TABLE audit_log ADD CONSTRAINT audit_log_kind_check
    CHECK (kind IN ('project_add', 'project_edit', 'project_status', 'project_import', 'run_now',
                    'user_disable', 'user_enable', 'admin_grant', 'password_reset_sent',
                    'two_factor_reset', 'report_answer'));

-- Failing computers: the alert a volunteer may turn on (off by default),
-- its mails and unsubscribe links, and the episodes, one row per (host,
-- project, condition) while the condition holds; ended_at is set when it
-- clears. One mail per episode (mailed_at).
ALTER TABLE users ADD COLUMN alert_failing boolean NOT NULL DEFAULT false;

ALTER TABLE mail_outbox DROP CONSTRAINT mail_outbox_kind_check;
ALTER TABLE mail_outbox ADD CONSTRAINT mail_outbox_kind_check
    CHECK (kind IN ('welcome', 'email_confirm', 'password_reset', 'email_change', 'email_changed',
                    'silence_alert', 'weekly_summary', 'signup', 'signup_taken',
                    'failing_alert', 'report_answer'));

ALTER TABLE user_tokens DROP CONSTRAINT user_tokens_alert_check;
ALTER TABLE user_tokens ADD CONSTRAINT user_tokens_alert_check
    CHECK (alert IN ('silence', 'weekly', 'failing'));

CREATE TABLE host_failures (
    id         bigint      GENERATED ALWAYS AS IDENTITY,
    user_id    bigint      NOT NULL,
    host_id    bigint      NOT NULL,
    project_id bigint      NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    kind       text        NOT NULL CHECK (kind IN ('jobs_failing', 'nothing_granted', 'project_silent')),
    -- What the check saw when the episode began, for the warning's words.
    detail     jsonb       NOT NULL DEFAULT '{}',
    started_at timestamptz NOT NULL,
    ended_at   timestamptz,
    mailed_at  timestamptz,
    PRIMARY KEY (id, user_id),
    FOREIGN KEY (host_id, user_id) REFERENCES hosts (id, user_id) ON DELETE CASCADE
);
CREATE UNIQUE INDEX host_failures_open_key ON host_failures (host_id, project_id, kind, user_id) WHERE ended_at IS NULL;
CREATE INDEX host_failures_user_idx ON host_failures (user_id) WHERE ended_at IS NULL;

ALTER TABLE accounting_events DROP CONSTRAINT accounting_events_kind_check;
ALTER TABLE accounting_events ADD CONSTRAINT accounting_events_kind_check
    CHECK (kind IN ('reset', 'stale_report', 'clamp', 'implausible_host', 'bad_counters',
                    'credit_decrease', 'failing', 'failing_cleared'));

-- The project's last scheduler contact with the host, as its export says
-- (<rpc_time>): "Cobble hears from it but the project has not".
ALTER TABLE export_credit ADD COLUMN rpc_time timestamptz;
