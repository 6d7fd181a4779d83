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
