-- River, the job queue that runs Cobble's mail and cluster-wide periodic
-- work (docs/ARCHITECTURE.md, "Background work"). River's own migrator
-- writes its tables just before this migration (migrateRiver in
-- migrations.go, each of River's versions in a transaction of its own, as
-- some of them must be), and records its versions in river_migration. This
-- migration checks that it did.
DO $$
BEGIN
    IF to_regclass('river_job') IS NULL OR to_regclass('river_migration') IS NULL THEN
        RAISE EXCEPTION 'River''s tables are missing: apply migration 021 with cobble migrate';
    END IF;
END
$$;

-- Every queued message is delivered by a River job of kind 'mail' in the
-- queue 'mail' (accounting.MailJob), written with it, in the transaction
-- of its cause: by this trigger, so that the requests that write their
-- message in one statement (sign-up, password reset) stay one statement
-- whether or not they write one, and do not tell whether an address has an
-- account. mail_job makes every such job; a message due later gets a job
-- scheduled for then. River tries one job up to 100 times; the mailer
-- gives a message up sooner (its --mail attempts), keeping the last error.
CREATE FUNCTION mail_job(message bigint, due timestamptz) RETURNS void
LANGUAGE sql AS $$
    INSERT INTO river_job (kind, queue, args, max_attempts, state, scheduled_at)
    VALUES ('mail', 'mail', jsonb_build_object('id', message), 100,
        -- As River does for a retry: a job due within its scheduler's
        -- period is available, and fetched once due.
        CASE WHEN due > now() + interval '5 seconds' THEN 'scheduled' ELSE 'available' END::river_job_state,
        greatest(due, now()))
$$;

CREATE FUNCTION mail_outbox_job() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM mail_job(NEW.id, NEW.next_attempt_at);
    RETURN NULL;
END
$$;

CREATE TRIGGER mail_outbox_job AFTER INSERT ON mail_outbox
    FOR EACH ROW WHEN (NEW.status = 'queued') EXECUTE FUNCTION mail_outbox_job();

-- The messages queued before River get their jobs.
SELECT mail_job(id, next_attempt_at) FROM mail_outbox WHERE status = 'queued';
