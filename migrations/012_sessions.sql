-- Web sessions a volunteer can see and end: one row per logged-in session.
-- scs keeps each session's data in sessions; that data holds the id of its
-- row here. A session whose row is gone is logged out at its next request,
-- on every instance. This replaces users.session_gen, which is no longer
-- read (it stays until no instance of an older Cobble can be running).

CREATE TABLE user_sessions (
    id           bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    user_id      bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    started_at   timestamptz NOT NULL DEFAULT now(),
    -- Updated at most about once a minute, by the session's own requests.
    last_seen_at timestamptz NOT NULL DEFAULT now(),
    -- The browser's User-Agent when the session started, cut short.
    user_agent   text        NOT NULL DEFAULT '' CHECK (length(user_agent) <= 300),
    -- The client's address (its /64 for IPv6) when last seen.
    address      text        NOT NULL DEFAULT '' CHECK (length(address) <= 64),
    CHECK (last_seen_at >= started_at)
);
CREATE INDEX user_sessions_user ON user_sessions (user_id);
-- Rows of sessions that expired are removed a bounded batch at a time.
CREATE INDEX user_sessions_seen ON user_sessions (last_seen_at);
