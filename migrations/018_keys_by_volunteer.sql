-- Keys by volunteer: every volunteer-owned table carries user_id in its
-- primary key and in each of its unique keys, and a foreign key between two
-- such tables carries user_id on both sides, so that the data could be
-- spread over several machines by volunteer without another schema change
-- (docs/SCALING.md, migrations/distribution_test.go).
--
-- Each new key holds the old one's columns plus user_id. Ids come from
-- sequences and tokens are 128 random bits, so an id or a token still names
-- one row, though the keys alone would now let two volunteers share one.
-- A host's rows name its volunteer, and the foreign keys to the host check
-- that. The ledgers keep their rows: only their foreign keys change, and
-- PostgreSQL checks the new ones once, reading every row.

-- The foreign keys to the keys that change go first, and come back below.
ALTER TABLE ledger DROP CONSTRAINT ledger_host_id_project_id_fkey;
ALTER TABLE confirmed_ledger DROP CONSTRAINT confirmed_ledger_host_id_project_id_fkey;
ALTER TABLE ledger_retired_totals DROP CONSTRAINT ledger_retired_totals_host_id_project_id_fkey;
ALTER TABLE export_credit DROP CONSTRAINT export_credit_host_id_project_id_fkey;
ALTER TABLE host_projects DROP CONSTRAINT host_projects_host_id_fkey;
ALTER TABLE accounting_events DROP CONSTRAINT accounting_events_host_id_fkey;
ALTER TABLE am_tokens DROP CONSTRAINT am_tokens_host_fk;
ALTER TABLE reconcile_missing DROP CONSTRAINT reconcile_missing_host_id_fkey;
ALTER TABLE reconcile_ratios DROP CONSTRAINT reconcile_ratios_host_id_fkey;
ALTER TABLE reconcile_unverified DROP CONSTRAINT reconcile_unverified_host_id_fkey;

-- Hosts: the key (user_id, id) that computers' choices already refer to
-- becomes the primary key; lookups by id alone keep an index. The opaque
-- token stays unique with its volunteer beside it (its lookups read the
-- token first).
ALTER TABLE hosts DROP CONSTRAINT hosts_pkey;
ALTER TABLE hosts ADD CONSTRAINT hosts_pkey PRIMARY KEY USING INDEX hosts_user_id_key;
CREATE INDEX hosts_id_idx ON hosts (id);
ALTER TABLE hosts DROP CONSTRAINT hosts_opaque_token_key;
ALTER TABLE hosts ADD CONSTRAINT hosts_opaque_token_key UNIQUE (opaque_token, user_id);

ALTER TABLE host_projects DROP CONSTRAINT host_projects_pkey;
ALTER TABLE host_projects ADD PRIMARY KEY (host_id, project_id, user_id);
ALTER TABLE host_projects ADD CONSTRAINT host_projects_host_fkey
    FOREIGN KEY (user_id, host_id) REFERENCES hosts (user_id, id) ON DELETE CASCADE;

ALTER TABLE ledger ADD CONSTRAINT ledger_host_project_fkey FOREIGN KEY (host_id, project_id, user_id)
    REFERENCES host_projects (host_id, project_id, user_id) ON DELETE CASCADE;
ALTER TABLE confirmed_ledger ADD CONSTRAINT confirmed_ledger_host_project_fkey FOREIGN KEY (host_id, project_id, user_id)
    REFERENCES host_projects (host_id, project_id, user_id) ON DELETE CASCADE;
ALTER TABLE ledger_retired_totals ADD CONSTRAINT ledger_retired_totals_host_project_fkey FOREIGN KEY (host_id, project_id, user_id)
    REFERENCES host_projects (host_id, project_id, user_id) ON DELETE CASCADE;

-- The credit a project's export listed for each host is the host's, so its
-- volunteer's: it takes the volunteer from the host's project row.
ALTER TABLE export_credit ADD COLUMN user_id bigint;
UPDATE export_credit e SET user_id = hp.user_id
FROM host_projects hp WHERE hp.host_id = e.host_id AND hp.project_id = e.project_id;
ALTER TABLE export_credit ALTER COLUMN user_id SET NOT NULL;
ALTER TABLE export_credit DROP CONSTRAINT export_credit_pkey;
ALTER TABLE export_credit ADD PRIMARY KEY (host_id, project_id, export_time, user_id);
ALTER TABLE export_credit ADD CONSTRAINT export_credit_host_project_fkey FOREIGN KEY (host_id, project_id, user_id)
    REFERENCES host_projects (host_id, project_id, user_id) ON DELETE CASCADE;

-- A host missing from a project's export: its volunteer, from the host.
ALTER TABLE reconcile_missing ADD COLUMN user_id bigint;
UPDATE reconcile_missing m SET user_id = h.user_id FROM hosts h WHERE h.id = m.host_id;
ALTER TABLE reconcile_missing ALTER COLUMN user_id SET NOT NULL;
ALTER TABLE reconcile_missing DROP CONSTRAINT reconcile_missing_pkey;
ALTER TABLE reconcile_missing ADD PRIMARY KEY (run_id, host_id, user_id);

ALTER TABLE reconcile_missing ADD CONSTRAINT reconcile_missing_host_fkey
    FOREIGN KEY (user_id, host_id) REFERENCES hosts (user_id, id) ON DELETE CASCADE;
ALTER TABLE reconcile_ratios ADD CONSTRAINT reconcile_ratios_host_fkey
    FOREIGN KEY (user_id, host_id) REFERENCES hosts (user_id, id) ON DELETE CASCADE;
ALTER TABLE reconcile_unverified ADD CONSTRAINT reconcile_unverified_host_fkey
    FOREIGN KEY (user_id, host_id) REFERENCES hosts (user_id, id) ON DELETE CASCADE;
ALTER TABLE accounting_events ADD CONSTRAINT accounting_events_host_fkey
    FOREIGN KEY (user_id, host_id) REFERENCES hosts (user_id, id) ON DELETE CASCADE;

-- Tokens and sessions: the token or id first, so that lookups by it read
-- the key's index. A host has at most one AM token, as before.
ALTER TABLE am_tokens DROP CONSTRAINT am_tokens_pkey;
ALTER TABLE am_tokens ADD PRIMARY KEY (token_hash, user_id);
DROP INDEX am_tokens_host_key;
CREATE UNIQUE INDEX am_tokens_host_key ON am_tokens (host_id, user_id) WHERE host_id IS NOT NULL;
ALTER TABLE am_tokens ADD CONSTRAINT am_tokens_host_fkey
    FOREIGN KEY (user_id, host_id) REFERENCES hosts (user_id, id) ON DELETE CASCADE;

ALTER TABLE user_tokens DROP CONSTRAINT user_tokens_pkey;
ALTER TABLE user_tokens ADD PRIMARY KEY (token_hash, user_id);

ALTER TABLE user_sessions DROP CONSTRAINT user_sessions_pkey;
ALTER TABLE user_sessions ADD PRIMARY KEY (id, user_id);

-- An email address and a feed token each name one volunteer across all of
-- them: that uniqueness cannot carry the volunteer, so it moves to two
-- directories, each keyed by what is unique, with the volunteer beside it.
-- They would be copied to every machine; the trigger below keeps them in
-- step with users, whatever changes an address or a token.
CREATE TABLE user_emails (
    email   text   PRIMARY KEY CHECK (email = lower(email)), -- lower(users.email)
    user_id bigint NOT NULL
);
CREATE TABLE user_feed_tokens (
    feed_token text   PRIMARY KEY,
    user_id    bigint NOT NULL
);
INSERT INTO user_emails (email, user_id) SELECT lower(email), id FROM users;
INSERT INTO user_feed_tokens (feed_token, user_id) SELECT feed_token, id FROM users;

-- A taken address or token fails the statement that writes users, with a
-- unique violation of the directory's key (user_emails_pkey,
-- user_feed_tokens_pkey).
CREATE FUNCTION users_directory() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') THEN
        DELETE FROM user_emails WHERE email = lower(OLD.email) AND user_id = OLD.id;
        DELETE FROM user_feed_tokens WHERE feed_token = OLD.feed_token AND user_id = OLD.id;
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        INSERT INTO user_emails (email, user_id) VALUES (lower(NEW.email), NEW.id);
        INSERT INTO user_feed_tokens (feed_token, user_id) VALUES (NEW.feed_token, NEW.id);
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER users_directory AFTER INSERT OR DELETE OR UPDATE OF email, feed_token ON users
    FOR EACH ROW EXECUTE FUNCTION users_directory();

-- Lookups by address read users_email_prefix_idx, which answers equality
-- too; lookups by feed token get a plain index.
DROP INDEX users_email_key;
DROP INDEX users_feed_token_key;
CREATE INDEX users_feed_token_idx ON users (feed_token);

-- The mail queue and the audit log are not a volunteer's rows: the mailer
-- drains the queue across all volunteers (some of its mail goes to
-- addresses without an account), and the log is the admins'. They would not
-- be spread by volunteer, and so have no foreign keys into the volunteers'
-- tables; deleting an account still drops its queued mail and unnames it in
-- the log.
ALTER TABLE mail_outbox DROP CONSTRAINT mail_outbox_user_id_fkey;
ALTER TABLE audit_log DROP CONSTRAINT audit_log_actor_user_id_fkey;

CREATE FUNCTION users_forget() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM mail_outbox WHERE user_id = OLD.id;
    UPDATE audit_log SET actor_user_id = NULL WHERE actor_user_id = OLD.id;
    RETURN NULL;
END $$;
CREATE TRIGGER users_forget AFTER DELETE ON users FOR EACH ROW EXECUTE FUNCTION users_forget();
