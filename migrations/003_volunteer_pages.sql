-- The volunteer pages: each volunteer's secret notices-feed token, which the
-- AM reply hands to their BOINC clients (<rss_feeds>). Random, unguessable,
-- replaced to revoke the old feed address.
ALTER TABLE users ADD COLUMN feed_token text NOT NULL
    DEFAULT replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', '');
CREATE UNIQUE INDEX users_feed_token_key ON users (feed_token);
