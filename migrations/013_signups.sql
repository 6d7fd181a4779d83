-- Sign-ups waiting for their address to be confirmed. A sign-up makes no
-- account: it mails a link to the address, and the account is made when
-- the link is followed, so that a sign-up answers the same whether the
-- address has an account or not. A taken address gets a note instead.

CREATE TABLE signups (
    -- Only a SHA-256 of the mailed link's token is kept.
    token_hash    bytea       PRIMARY KEY CHECK (length(token_hash) = 32),
    email         text        NOT NULL CHECK (email <> '' AND length(email) <= 254),
    name          text        NOT NULL CHECK (length(name) <= 100),
    -- bcrypt of the BOINC password hash made with email, as users keeps it.
    password_hash text        NOT NULL,
    created_at    timestamptz NOT NULL DEFAULT now(),
    expires_at    timestamptz NOT NULL
);
CREATE INDEX signups_email ON signups (lower(email));
CREATE INDEX signups_expiry ON signups (expires_at);

ALTER TABLE mail_outbox DROP CONSTRAINT mail_outbox_kind_check;
ALTER TABLE mail_outbox ADD CONSTRAINT mail_outbox_kind_check
    CHECK (kind IN ('welcome', 'email_confirm', 'password_reset', 'email_change', 'email_changed',
                    'silence_alert', 'weekly_summary', 'signup', 'signup_taken'));
-- Sign-up links go to addresses without an account: they are counted by
-- recipient.
CREATE INDEX mail_outbox_recipient ON mail_outbox (lower(recipient), kind, created_at);
