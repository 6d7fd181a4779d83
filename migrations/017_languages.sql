-- The language each volunteer reads Cobble in: the code of one of its
-- catalogs ("en", "de"), or '' for none chosen (pages follow the browser;
-- mail, the notices feed and RPC messages are in English). A sign-up and
-- each queued message keep the language they were made in.

ALTER TABLE users ADD COLUMN language text NOT NULL DEFAULT ''
    CHECK (language ~ '^([a-z]{2,3}(-[A-Za-z0-9]{1,8})*)?$');
ALTER TABLE signups ADD COLUMN language text NOT NULL DEFAULT ''
    CHECK (language ~ '^([a-z]{2,3}(-[A-Za-z0-9]{1,8})*)?$');
ALTER TABLE mail_outbox ADD COLUMN language text NOT NULL DEFAULT ''
    CHECK (language ~ '^([a-z]{2,3}(-[A-Za-z0-9]{1,8})*)?$');
