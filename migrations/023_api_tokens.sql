-- Personal API tokens: a volunteer's named, read-only keys to the JSON API
-- under /api/v1/ (accounting/api_tokens.go). Only the SHA-256 of a secret
-- is stored; revoking a token deletes its row, so a revoked secret is as
-- unknown as one never made. At most 10 a volunteer (checked when one is
-- made, under the volunteer's row lock). The keys carry the volunteer
-- (migration 018); the secret's hash is a lookup key, unique on its own,
-- like an AM token (migrations/distribution_test.go).
CREATE TABLE api_tokens (
    id             bigserial   NOT NULL,
    user_id        bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name           text        NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
    secret_hash    bytea       NOT NULL UNIQUE CHECK (length(secret_hash) = 32),
    created_at     timestamptz NOT NULL DEFAULT now(),
    -- When and from where (an IPv4 address or an IPv6 /64) the token was
    -- last used, written at most once a minute a token.
    last_used_at   timestamptz,
    last_used_from text        NOT NULL DEFAULT '' CHECK (length(last_used_from) <= 64),
    PRIMARY KEY (user_id, id)
);

-- Each token's requests in the current minute, shared by every instance:
-- the API's rate limit. One row a token, started again each minute.
CREATE UNLOGGED TABLE api_token_counts (
    user_id      bigint      NOT NULL,
    token_id     bigint      NOT NULL,
    window_start timestamptz NOT NULL,
    n            integer     NOT NULL CHECK (n > 0),
    PRIMARY KEY (user_id, token_id),
    FOREIGN KEY (user_id, token_id) REFERENCES api_tokens (user_id, id) ON DELETE CASCADE
);

-- Tokens a volunteer made in the current hour, so that making and revoking
-- them in a loop is refused after a limit.
CREATE UNLOGGED TABLE api_token_creations (
    user_id      bigint      PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    window_start timestamptz NOT NULL,
    n            integer     NOT NULL CHECK (n > 0)
);

-- The API lists a volunteer's events over all their computers, newest
-- first, a page at a time: this index serves that order.
CREATE INDEX accounting_events_user_at_idx ON accounting_events (user_id, at DESC, id DESC);
