-- Cobble's statistics export (issue 43): the files a statistics site
-- reads, in the layout of BOINC's db_dump, listing only the volunteers who
-- opt in.

-- A listed volunteer's number in the export: drawn from a sequence when
-- they first opt in and drawn again when they renew their cross-project
-- id, so that neither says who they are in Cobble nor ties the old listing
-- to the new. stats_since is when the listing under these ids began (the
-- export's create_time). stats_hosts lists their computers in host.gz.
CREATE SEQUENCE stats_ids;
ALTER TABLE public_profiles
    ADD COLUMN stats_id    bigint      UNIQUE,
    ADD COLUMN stats_since timestamptz,
    ADD COLUMN stats_hosts boolean     NOT NULL DEFAULT false,
    ADD CONSTRAINT public_profiles_stats_ids CHECK (
        (stats_cpid IS NULL) = (stats_id IS NULL) AND (stats_id IS NULL) = (stats_since IS NULL)),
    ADD CONSTRAINT public_profiles_in_stats_ids CHECK (NOT in_stats OR stats_cpid IS NOT NULL);

-- The exports built, the newest the one served. A build writes its files
-- in one transaction and deletes the older exports in it, so that every
-- instance serves the same bytes and none ever sees half an export.
CREATE TABLE stats_exports (
    id       bigserial   PRIMARY KEY,
    built_at timestamptz NOT NULL
);

CREATE TABLE stats_export_files (
    export_id bigint NOT NULL REFERENCES stats_exports (id) ON DELETE CASCADE,
    name      text   NOT NULL CHECK (name IN ('tables.xml', 'user.gz', 'team.gz', 'host.gz')),
    size      bigint NOT NULL DEFAULT 0 CHECK (size >= 0),
    -- A digest of the file's bytes, quoted: the HTTP ETag.
    etag      text   NOT NULL DEFAULT '',
    PRIMARY KEY (export_id, name)
);

-- A file's bytes in pieces of at most a MiB, in order: written as the
-- gzip stream fills them, read back one by one.
CREATE TABLE stats_export_chunks (
    export_id bigint NOT NULL,
    name      text   NOT NULL,
    seq       int    NOT NULL CHECK (seq >= 0),
    data      bytea  NOT NULL,
    PRIMARY KEY (export_id, name, seq),
    FOREIGN KEY (export_id, name) REFERENCES stats_export_files (export_id, name) ON DELETE CASCADE
);
-- The files are compressed already: store them as they are.
ALTER TABLE stats_export_chunks ALTER COLUMN data SET STORAGE EXTERNAL;
