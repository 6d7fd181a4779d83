-- Two-factor sign-in (TOTP, RFC 6238) and its one-time recovery codes.

-- One row per account that has turned two-factor sign-in on. The secret
-- is the base32 key the volunteer's authenticator app holds. last_step is
-- the time step (Unix time / 30 s) of the last code accepted: a code is
-- accepted only for a later step, so a replayed code is refused, and the
-- UPDATE that moves it forward is the one place that decides (atomic
-- across instances).
CREATE TABLE user_two_factor (
    user_id    bigint      PRIMARY KEY REFERENCES users ON DELETE CASCADE,
    secret     text        NOT NULL CHECK (length(secret) BETWEEN 16 AND 128),
    last_step  bigint      NOT NULL CHECK (last_step >= 0),
    enabled_at timestamptz NOT NULL DEFAULT now()
);

-- Ten per account, made when two-factor sign-in is turned on; only a
-- SHA-256 of each is kept. A code works once (used_at).
CREATE TABLE user_recovery_codes (
    user_id   bigint      NOT NULL REFERENCES user_two_factor ON DELETE CASCADE,
    code_hash bytea       NOT NULL CHECK (length(code_hash) = 32),
    used_at   timestamptz,
    PRIMARY KEY (user_id, code_hash)
);

ALTER TABLE audit_log DROP CONSTRAINT audit_log_kind_check;
ALTER TABLE audit_log ADD CONSTRAINT audit_log_kind_check
    CHECK (kind IN ('project_add', 'project_edit', 'project_status', 'project_import', 'run_now',
                    'user_disable', 'user_enable', 'admin_grant', 'password_reset_sent',
                    'two_factor_reset'));
