-- Cobble's first schema: volunteers, their AM authenticators, hosts, the project
-- catalog, what each host runs, the signing key and web sessions.

CREATE TABLE users (
    id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    email         text        NOT NULL CHECK (email <> '' AND length(email) <= 254),
    name          text        NOT NULL CHECK (length(name) <= 100),
    -- bcrypt of md5_hex(password + lower(email)), the value BOINC clients send.
    password_hash text        NOT NULL,
    is_admin      boolean     NOT NULL DEFAULT false,
    time_zone     text        NOT NULL DEFAULT 'UTC',
    created_at    timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX users_email_key ON users (lower(email));

-- AM-only authenticators handed to clients; only a SHA-256 of each is kept.
-- One per host that joined with a password, so a re-join replaces its own.
CREATE TABLE am_tokens (
    token_hash   bytea       PRIMARY KEY,
    user_id      bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    host_id      bigint,
    created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX am_tokens_user_idx ON am_tokens (user_id);

CREATE TABLE hosts (
    id                 bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    user_id            bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    -- The random token carried in the reply's <opaque> and echoed by the client.
    opaque_token       text        NOT NULL UNIQUE,
    host_cpid          text        NOT NULL DEFAULT '',
    domain_name        text        NOT NULL DEFAULT '',
    client_version     text        NOT NULL DEFAULT '',
    platforms          text[]      NOT NULL DEFAULT '{}',
    os_name            text        NOT NULL DEFAULT '',
    os_version         text        NOT NULL DEFAULT '',
    p_vendor           text        NOT NULL DEFAULT '',
    p_model            text        NOT NULL DEFAULT '',
    ncpus              integer     NOT NULL DEFAULT 0,
    p_fpops            double precision NOT NULL DEFAULT 0,
    m_nbytes           double precision NOT NULL DEFAULT 0,
    timezone_offset    integer     NOT NULL DEFAULT 0,
    -- [{"type": "NVIDIA", "count": 1, "peak_flops": 1e13}, ...]
    coprocs            jsonb       NOT NULL DEFAULT '[]',
    created_at         timestamptz NOT NULL DEFAULT now(),
    last_rpc_at        timestamptz,
    rpc_count          bigint      NOT NULL DEFAULT 0,
    -- What the host claimed implausibly in its last RPC ('' when nothing).
    implausible        text        NOT NULL DEFAULT ''
);
CREATE INDEX hosts_user_idx ON hosts (user_id, host_cpid);

ALTER TABLE am_tokens
    ADD CONSTRAINT am_tokens_host_fk FOREIGN KEY (host_id) REFERENCES hosts (id) ON DELETE CASCADE;
CREATE UNIQUE INDEX am_tokens_host_key ON am_tokens (host_id) WHERE host_id IS NOT NULL;

CREATE TABLE projects (
    id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    url           text        NOT NULL UNIQUE,
    name          text        NOT NULL CHECK (name <> ''),
    description   text        NOT NULL DEFAULT '',
    keywords      text[]      NOT NULL DEFAULT '{}',
    -- Empty means every platform.
    platforms     text[]      NOT NULL DEFAULT '{}',
    resources     text[]      NOT NULL DEFAULT '{CPU}' CHECK (cardinality(resources) > 0),
    -- The shared project-account authenticator Cobble hands to clients.
    authenticator text        NOT NULL CHECK (authenticator <> ''),
    stats_url     text        NOT NULL DEFAULT '',
    share         double precision NOT NULL DEFAULT 100 CHECK (share > 0),
    status        text        NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'paused', 'retired')),
    created_at    timestamptz NOT NULL DEFAULT now()
);
-- BOINC clients take URLs that differ only in scheme, letter case or a
-- trailing slash for the same project; so does the catalog.
CREATE UNIQUE INDEX projects_url_key_idx
    ON projects (lower(regexp_replace(rtrim(url, '/'), '^https?://', '', 'i')));

-- A volunteer's explicit choices: a project excluded, or chosen.
CREATE TABLE user_projects (
    user_id    bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    project_id bigint NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    choice     text   NOT NULL CHECK (choice IN ('exclude', 'choose')),
    PRIMARY KEY (user_id, project_id)
);

-- What each host runs, and its accounting state for each project.
-- Amounts named *_micro are whole millionths (of a Cobblestone or of a
-- second), so that sums and differences are exact.
CREATE TABLE host_projects (
    host_id        bigint      NOT NULL REFERENCES hosts (id) ON DELETE CASCADE,
    project_id     bigint      NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    user_id        bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    -- Cobble currently asks the host to work for the project.
    assigned       boolean     NOT NULL DEFAULT false,
    -- The host listed the project in its last request.
    attached       boolean     NOT NULL DEFAULT false,
    -- The project's own id for this host (<hostid>); 0 until the project assigns one.
    project_hostid bigint      NOT NULL DEFAULT 0,
    -- The lifetime counters last reported: the baseline of the next delta.
    -- NULL while unknown (no request with counters yet).
    last_cpu_ec_micro   bigint CHECK (last_cpu_ec_micro >= 0),
    last_cpu_time_micro bigint CHECK (last_cpu_time_micro >= 0),
    last_gpu_ec_micro   bigint CHECK (last_gpu_ec_micro >= 0),
    last_gpu_time_micro bigint CHECK (last_gpu_time_micro >= 0),
    last_njobs_success  bigint CHECK (last_njobs_success >= 0),
    last_njobs_error    bigint CHECK (last_njobs_error >= 0),
    reported_at    timestamptz,
    -- Lifetime credited amounts: the sum of this pair's ledger rows
    -- (cobble ledger rebuild checks and restores that).
    total_cpu_ec_micro   bigint NOT NULL DEFAULT 0 CHECK (total_cpu_ec_micro >= 0),
    total_cpu_time_micro bigint NOT NULL DEFAULT 0 CHECK (total_cpu_time_micro >= 0),
    total_gpu_ec_micro   bigint NOT NULL DEFAULT 0 CHECK (total_gpu_ec_micro >= 0),
    total_gpu_time_micro bigint NOT NULL DEFAULT 0 CHECK (total_gpu_time_micro >= 0),
    total_njobs_success  bigint NOT NULL DEFAULT 0 CHECK (total_njobs_success >= 0),
    total_njobs_error    bigint NOT NULL DEFAULT 0 CHECK (total_njobs_error >= 0),
    -- Recent average credit per day (one-week half-life) as of avg_time.
    avg_ec         double precision NOT NULL DEFAULT 0,
    avg_time       timestamptz,
    first_seen_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (host_id, project_id)
);
CREATE INDEX host_projects_project_idx ON host_projects (project_id, project_hostid);
CREATE INDEX host_projects_user_idx ON host_projects (user_id, project_id);

-- The estimated-credit ledger: what each (host, project) earned each day,
-- in the volunteer's time zone. Every other total derives from it.
CREATE TABLE ledger (
    host_id          bigint NOT NULL,
    project_id       bigint NOT NULL,
    day              date   NOT NULL,
    user_id          bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    cpu_ec_micro     bigint NOT NULL DEFAULT 0 CHECK (cpu_ec_micro >= 0),
    cpu_time_micro   bigint NOT NULL DEFAULT 0 CHECK (cpu_time_micro >= 0),
    gpu_ec_micro     bigint NOT NULL DEFAULT 0 CHECK (gpu_ec_micro >= 0),
    gpu_time_micro   bigint NOT NULL DEFAULT 0 CHECK (gpu_time_micro >= 0),
    njobs_success    bigint NOT NULL DEFAULT 0 CHECK (njobs_success >= 0),
    njobs_error      bigint NOT NULL DEFAULT 0 CHECK (njobs_error >= 0),
    -- Claimed beyond the host's limits: kept for audit, never credited.
    clamped_cpu_ec_micro   bigint NOT NULL DEFAULT 0 CHECK (clamped_cpu_ec_micro >= 0),
    clamped_cpu_time_micro bigint NOT NULL DEFAULT 0 CHECK (clamped_cpu_time_micro >= 0),
    clamped_gpu_ec_micro   bigint NOT NULL DEFAULT 0 CHECK (clamped_gpu_ec_micro >= 0),
    clamped_gpu_time_micro bigint NOT NULL DEFAULT 0 CHECK (clamped_gpu_time_micro >= 0),
    clamped_njobs_success  bigint NOT NULL DEFAULT 0 CHECK (clamped_njobs_success >= 0),
    clamped_njobs_error    bigint NOT NULL DEFAULT 0 CHECK (clamped_njobs_error >= 0),
    PRIMARY KEY (host_id, project_id, day),
    FOREIGN KEY (host_id, project_id) REFERENCES host_projects (host_id, project_id) ON DELETE CASCADE
);
CREATE INDEX ledger_user_day_idx ON ledger (user_id, day);
CREATE INDEX ledger_project_day_idx ON ledger (project_id, day);
CREATE INDEX ledger_day_idx ON ledger (day);

-- What accounting noticed: counter resets, clamped claims, implausible hosts.
CREATE TABLE accounting_events (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    user_id    bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    host_id    bigint      NOT NULL REFERENCES hosts (id) ON DELETE CASCADE,
    project_id bigint      REFERENCES projects (id) ON DELETE CASCADE,
    at         timestamptz NOT NULL,
    kind       text        NOT NULL CHECK (kind IN ('reset', 'clamp', 'implausible_host', 'bad_counters',
                                                     'credit_decrease')),
    detail     jsonb       NOT NULL DEFAULT '{}'
);
CREATE INDEX accounting_events_host_idx ON accounting_events (host_id, at);

-- The one RSA key that signs project URLs. Never changes once written.
CREATE TABLE signing_key (
    id          boolean     PRIMARY KEY DEFAULT true CHECK (id),
    private_pem text        NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now()
);

-- Web sessions (the layout alexedwards/scs/pgxstore expects).
CREATE TABLE sessions (
    token  text        PRIMARY KEY,
    data   bytea       NOT NULL,
    expiry timestamptz NOT NULL
);
CREATE INDEX sessions_expiry_idx ON sessions (expiry);
