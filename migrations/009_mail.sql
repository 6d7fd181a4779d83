-- Email: an outbox of messages written in the transaction of their cause,
-- single-use tokens for the links they carry, address confirmation, the
-- alerts a volunteer chooses, and a generation number that ends every web
-- session of an account when its password is reset.

ALTER TABLE users
    -- When the volunteer followed a confirmation link sent to the current
    -- address (or completed a password reset sent to it); NULL: unconfirmed.
    ADD COLUMN email_confirmed_at timestamptz,
    -- Sessions carry the generation they were started in; a session of an
    -- older generation is logged out.
    ADD COLUMN session_gen bigint NOT NULL DEFAULT 0,
    -- "Email me when a computer has not contacted Cobble for N days"; NULL: off.
    ADD COLUMN alert_silence_days integer CHECK (alert_silence_days BETWEEN 1 AND 60),
    ADD COLUMN weekly_summary boolean NOT NULL DEFAULT false,
    ADD COLUMN weekly_summary_at timestamptz;

-- When the volunteer was last told that this computer went silent: a new
-- alert needs a contact after it (one mail per silence).
ALTER TABLE hosts ADD COLUMN silence_alerted_at timestamptz;

-- Tokens of the links Cobble mails; only a SHA-256 of each is kept.
CREATE TABLE user_tokens (
    token_hash        bytea       PRIMARY KEY CHECK (length(token_hash) = 32),
    user_id           bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    purpose           text        NOT NULL CHECK (purpose IN ('password_reset', 'email_confirm',
                                                             'email_change', 'unsubscribe')),
    -- The address the link was sent to: the one it confirms, or the new one.
    email             text        NOT NULL CHECK (email <> '' AND length(email) <= 254),
    -- email_change: bcrypt of the BOINC password hash made with the new
    -- address, which BOINC clients will send once it takes effect.
    new_password_hash text,
    -- unsubscribe: which alerts the link turns off.
    alert             text        CHECK (alert IN ('silence', 'weekly')),
    created_at        timestamptz NOT NULL DEFAULT now(),
    expires_at        timestamptz NOT NULL,
    CHECK ((purpose = 'unsubscribe') = (alert IS NOT NULL)),
    CHECK ((purpose = 'email_change') = (new_password_hash IS NOT NULL))
);
-- One live link of each kind per account: a newer request replaces it.
CREATE UNIQUE INDEX user_tokens_one_live ON user_tokens (user_id, purpose) WHERE purpose <> 'unsubscribe';
CREATE INDEX user_tokens_expiry ON user_tokens (expires_at);

CREATE TABLE mail_outbox (
    id              bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    kind            text        NOT NULL CHECK (kind IN ('welcome', 'email_confirm', 'password_reset',
                                                        'email_change', 'email_changed',
                                                        'silence_alert', 'weekly_summary')),
    user_id         bigint      REFERENCES users (id) ON DELETE CASCADE,
    recipient       text        NOT NULL CHECK (recipient <> '' AND length(recipient) <= 254),
    -- What the message says, rendered when it is sent.
    data            jsonb       NOT NULL DEFAULT '{}',
    -- The token of the message's link, until the message is sent or given
    -- up; never shown on a page.
    secret          text,
    status          text        NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'sent', 'failed')),
    attempts        integer     NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    last_error      text        NOT NULL DEFAULT '',
    created_at      timestamptz NOT NULL DEFAULT now(),
    next_attempt_at timestamptz NOT NULL DEFAULT now(),
    -- A sender that claimed the message owns it until then.
    claimed_until   timestamptz,
    sent_at         timestamptz,
    -- 'smtp', or 'mailbox' for the development mailbox at /dev/mail.
    transport       text        CHECK (transport IN ('smtp', 'mailbox'))
);
CREATE INDEX mail_outbox_due ON mail_outbox (next_attempt_at) WHERE status = 'queued';
CREATE INDEX mail_outbox_user ON mail_outbox (user_id, kind, created_at);
CREATE INDEX mail_outbox_recent ON mail_outbox (created_at);

ALTER TABLE audit_log DROP CONSTRAINT audit_log_kind_check;
ALTER TABLE audit_log ADD CONSTRAINT audit_log_kind_check
    CHECK (kind IN ('project_add', 'project_edit', 'project_status', 'project_import', 'run_now',
                    'user_disable', 'user_enable', 'admin_grant', 'password_reset_sent'));
