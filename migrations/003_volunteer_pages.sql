-- The volunteer pages: each volunteer's secret notices-feed token, which the
-- AM reply hands to their BOINC clients (<rss_feeds>). Random, unguessable,
-- replaced to revoke the old feed address.
ALTER TABLE users ADD COLUMN feed_token text NOT NULL
    DEFAULT replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', '');
CREATE UNIQUE INDEX users_feed_token_key ON users (feed_token);

-- The volunteer pages sum a volunteer's confirmed credit by day, project
-- and computer: a covering index lets PostgreSQL read only the index.
CREATE INDEX confirmed_ledger_user_day_cover_idx
    ON confirmed_ledger (user_id, day) INCLUDE (project_id, host_id, granted_micro);
DROP INDEX confirmed_ledger_user_day_idx;
