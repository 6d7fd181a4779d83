-- The language each volunteer reads Cobble in: the code of one of its
-- catalogs ("en", "de"), or '' for none chosen (pages follow the browser;
-- the notices feed, RPC messages and alerts are in English, and mail asked
-- for on a page is in the page's language). A sign-up keeps the language of
-- its page, and each queued message the language it is written in.

ALTER TABLE users ADD COLUMN language text NOT NULL DEFAULT ''
    CHECK (language ~ '^([a-z]{2,3}(-[A-Za-z0-9]{1,8})*)?$');
ALTER TABLE signups ADD COLUMN language text NOT NULL DEFAULT ''
    CHECK (language ~ '^([a-z]{2,3}(-[A-Za-z0-9]{1,8})*)?$');
ALTER TABLE mail_outbox ADD COLUMN language text NOT NULL DEFAULT ''
    CHECK (language ~ '^([a-z]{2,3}(-[A-Za-z0-9]{1,8})*)?$');
