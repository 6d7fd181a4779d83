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
    rpc_count          bigint      NOT NULL DEFAULT 0
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

-- A volunteer's explicit choices: a project excluded, or chosen.
CREATE TABLE user_projects (
    user_id    bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    project_id bigint NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    choice     text   NOT NULL CHECK (choice IN ('exclude', 'choose')),
    PRIMARY KEY (user_id, project_id)
);

-- What each host runs, and what it last reported for each project.
-- Counter columns are NULL while unknown (the client reported none yet).
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
    cpu_ec         double precision,
    cpu_time       double precision,
    gpu_ec         double precision,
    gpu_time       double precision,
    njobs_success  bigint,
    njobs_error    bigint,
    reported_at    timestamptz,
    first_seen_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (host_id, project_id)
);
CREATE INDEX host_projects_project_idx ON host_projects (project_id, project_hostid);

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
