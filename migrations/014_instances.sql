-- Several cobble serve processes on one database are one service: the
-- limits on password guessing and sign-ups, and the work expected from
-- hosts newly given a project, are counted here rather than in each
-- process's memory.

-- Counts of attempts per kind, key and fixed window: a wrong password per
-- client address ('addr'), per address and account ('pair') and per
-- account ('account', with the time of the last); sign-ups ('signup') and
-- password-reset requests ('mail') per address. Losing them in a crash
-- only forgets the current window, so the table is UNLOGGED; rows of
-- windows that have ended are pruned.
CREATE UNLOGGED TABLE attempt_counts (
    kind         text        NOT NULL CHECK (kind IN ('addr', 'pair', 'account', 'signup', 'mail')),
    key          text        NOT NULL CHECK (length(key) <= 600),
    window_start timestamptz NOT NULL,
    n            integer     NOT NULL CHECK (n > 0),
    last_at      timestamptz NOT NULL,
    PRIMARY KEY (kind, key, window_start)
);

-- The work (Cobblestones per day) that hosts were given each project to
-- do, per hour, until the ledger shows it: every instance balances the
-- next new host's projects with what all of them assigned.
CREATE UNLOGGED TABLE work_expected (
    project_id bigint      NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    hour       timestamptz NOT NULL,
    rate       float8      NOT NULL CHECK (rate >= 0),
    PRIMARY KEY (project_id, hour)
);

-- Instances keep the catalog and volunteers' feed tokens in memory. A
-- change to either, whoever makes it (an instance, a command, plain SQL),
-- notifies every instance listening on 'cobble_changes' when it commits:
-- 'catalog', or 'feed <user id>'.
CREATE FUNCTION cobble_notify_catalog() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('cobble_changes', 'catalog');
    RETURN NULL;
END $$;

CREATE TRIGGER projects_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON projects
    FOR EACH STATEMENT EXECUTE FUNCTION cobble_notify_catalog();

CREATE FUNCTION cobble_notify_feed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('cobble_changes', 'feed ' || NEW.id);
    RETURN NULL;
END $$;

CREATE TRIGGER feed_token_changed AFTER UPDATE OF feed_token ON users
    FOR EACH ROW WHEN (OLD.feed_token IS DISTINCT FROM NEW.feed_token)
    EXECUTE FUNCTION cobble_notify_feed();
