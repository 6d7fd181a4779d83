-- The ledger and the confirmed ledger, partitioned by month on day: one
-- table per calendar month, created ahead of time by Cobble itself
-- (ledger_partitions_ensure, called at start-up and by the periodic
-- rollup), and a DEFAULT partition each, so that a row whose month has no
-- partition yet is stored anyway (`cobble ledger check` reports such rows,
-- and the next ledger_partitions_ensure moves them into their month).
-- Both keys now carry user_id, the volunteer who owns the row, so that the
-- tables can be distributed by volunteer without a schema change.
--
-- The existing rows are copied in this migration's transaction: the old
-- tables are renamed, the new ones filled month by month, the keys,
-- indexes and foreign keys built after the copy, and the old tables dropped.

-- Creates the partition of parent ('ledger' or 'confirmed_ledger') that
-- holds the calendar month of month, unless it exists; rows of that month
-- in the DEFAULT partition move into it. Returns whether it created one.
-- The partition is made as a plain table and attached, so that the parent
-- is never locked against the RPCs' inserts.
CREATE FUNCTION ledger_partition_add(parent text, month date) RETURNS boolean
LANGUAGE plpgsql AS $$
DECLARE
    first date := date_trunc('month', month)::date;
    next  date := (date_trunc('month', month) + interval '1 month')::date;
    part  text := parent || '_p' || to_char(month, 'YYYY_MM');
BEGIN
    IF parent NOT IN ('ledger', 'confirmed_ledger') THEN
        RAISE EXCEPTION 'ledger_partition_add: % is not a ledger table', parent;
    END IF;
    IF to_regclass(part) IS NOT NULL THEN
        RETURN false;
    END IF;
    EXECUTE format('CREATE TABLE %I (LIKE %I INCLUDING DEFAULTS INCLUDING CONSTRAINTS)', part, parent);
    EXECUTE format('WITH moved AS (DELETE FROM %I WHERE day >= $1 AND day < $2 RETURNING *) '
                   'INSERT INTO %I SELECT * FROM moved', parent || '_default', part) USING first, next;
    EXECUTE format('ALTER TABLE %I ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)', parent, part, first, next);
    RETURN true;
END
$$;

-- Creates the month partitions of both ledgers from today's month to
-- ahead months after it, and those of the months that have rows in a
-- DEFAULT partition (moving the rows). Returns how many it created.
-- Callers serialise it with an advisory lock.
CREATE FUNCTION ledger_partitions_ensure(today date, ahead integer) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
    created integer := 0;
    parent  text;
    month   date;
BEGIN
    FOREACH parent IN ARRAY ARRAY['ledger', 'confirmed_ledger'] LOOP
        FOR month IN
            SELECT generate_series(date_trunc('month', today), date_trunc('month', today)
                                   + make_interval(months => ahead), interval '1 month')::date
        LOOP
            IF ledger_partition_add(parent, month) THEN
                created := created + 1;
            END IF;
        END LOOP;
        FOR month IN EXECUTE format('SELECT DISTINCT date_trunc(''month'', day)::date FROM %I', parent || '_default')
        LOOP
            IF ledger_partition_add(parent, month) THEN
                created := created + 1;
            END IF;
        END LOOP;
    END LOOP;
    RETURN created;
END
$$;

ALTER TABLE ledger RENAME TO ledger_unpartitioned;
ALTER TABLE confirmed_ledger RENAME TO confirmed_ledger_unpartitioned;

CREATE TABLE ledger (
    LIKE ledger_unpartitioned INCLUDING DEFAULTS INCLUDING CONSTRAINTS
) PARTITION BY RANGE (day);
CREATE TABLE ledger_default PARTITION OF ledger DEFAULT;

CREATE TABLE confirmed_ledger (
    LIKE confirmed_ledger_unpartitioned INCLUDING DEFAULTS INCLUDING CONSTRAINTS
) PARTITION BY RANGE (day);
CREATE TABLE confirmed_ledger_default PARTITION OF confirmed_ledger DEFAULT;

-- A partition for every month with rows, and for this month and the next
-- two, empty: the copy below fills them.
SELECT ledger_partition_add('ledger', m)
FROM (SELECT DISTINCT date_trunc('month', day)::date AS m FROM ledger_unpartitioned) AS months;
SELECT ledger_partition_add('confirmed_ledger', m)
FROM (SELECT DISTINCT date_trunc('month', day)::date AS m FROM confirmed_ledger_unpartitioned) AS months;
SELECT ledger_partitions_ensure(current_date, 2);

INSERT INTO ledger SELECT * FROM ledger_unpartitioned;
INSERT INTO confirmed_ledger SELECT * FROM confirmed_ledger_unpartitioned;
DROP TABLE ledger_unpartitioned;
DROP TABLE confirmed_ledger_unpartitioned;

-- The same keys as before, with user_id; the same indexes, built once on
-- the filled tables and in every partition.
ALTER TABLE ledger
    ADD PRIMARY KEY (host_id, project_id, day, user_id),
    ADD FOREIGN KEY (user_id) REFERENCES users (id) ON DELETE CASCADE,
    ADD FOREIGN KEY (host_id, project_id) REFERENCES host_projects (host_id, project_id) ON DELETE CASCADE;
CREATE INDEX ledger_user_day_idx ON ledger (user_id, day);
CREATE INDEX ledger_project_day_idx ON ledger (project_id, day);
CREATE INDEX ledger_day_idx ON ledger (day);

ALTER TABLE confirmed_ledger
    ADD PRIMARY KEY (host_id, project_id, day, user_id),
    ADD FOREIGN KEY (user_id) REFERENCES users (id) ON DELETE CASCADE,
    ADD FOREIGN KEY (host_id, project_id) REFERENCES host_projects (host_id, project_id) ON DELETE CASCADE;
CREATE INDEX confirmed_ledger_user_day_cover_idx
    ON confirmed_ledger (user_id, day) INCLUDE (project_id, host_id, granted_micro);
CREATE INDEX confirmed_ledger_project_day_idx ON confirmed_ledger (project_id, day);

-- Rollups of the ledger and the confirmed ledger, per (project, day) and
-- per day, folded by the periodic rollup (accounting/store_rollups.go) for
-- the recent days and for the days marked in ledger_dirty_days. Credit,
-- time and jobs as in the ledger (CPU and GPU together), in millionths;
-- hosts: the hosts with a ledger row that day.
CREATE TABLE rollup_project_days (
    project_id       bigint NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    day              date   NOT NULL,
    ec_micro         bigint NOT NULL DEFAULT 0,
    time_micro       bigint NOT NULL DEFAULT 0,
    njobs_success    bigint NOT NULL DEFAULT 0,
    njobs_error      bigint NOT NULL DEFAULT 0,
    clamped_ec_micro bigint NOT NULL DEFAULT 0,
    clamped_time_micro bigint NOT NULL DEFAULT 0,
    clamped_njobs    bigint NOT NULL DEFAULT 0,
    granted_micro    bigint NOT NULL DEFAULT 0,
    hosts            bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (project_id, day)
);
CREATE INDEX rollup_project_days_day_idx ON rollup_project_days (day);

CREATE TABLE rollup_days (
    day              date   PRIMARY KEY,
    ec_micro         bigint NOT NULL DEFAULT 0,
    time_micro       bigint NOT NULL DEFAULT 0,
    njobs_success    bigint NOT NULL DEFAULT 0,
    njobs_error      bigint NOT NULL DEFAULT 0,
    clamped_ec_micro bigint NOT NULL DEFAULT 0,
    clamped_time_micro bigint NOT NULL DEFAULT 0,
    clamped_njobs    bigint NOT NULL DEFAULT 0,
    granted_micro    bigint NOT NULL DEFAULT 0,
    hosts            bigint NOT NULL DEFAULT 0
);

-- Days whose ledger rows changed outside the rollup's recent window: an
-- RPC spreading credit over older days, a reconciliation's confirmed
-- credit, deleted rows. The rollup folds them and clears them.
CREATE TABLE ledger_dirty_days (
    day date PRIMARY KEY
);

-- Deleted rows (a volunteer's or a computer's deletion cascades) mark
-- their days. Per statement, so that a deletion of many rows costs one
-- insert of its distinct days.
CREATE FUNCTION ledger_mark_deleted_days() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO ledger_dirty_days (day) SELECT DISTINCT day FROM deleted ON CONFLICT DO NOTHING;
    RETURN NULL;
END
$$;
CREATE TRIGGER ledger_deleted_days AFTER DELETE ON ledger
    REFERENCING OLD TABLE AS deleted FOR EACH STATEMENT EXECUTE FUNCTION ledger_mark_deleted_days();
CREATE TRIGGER confirmed_ledger_deleted_days AFTER DELETE ON confirmed_ledger
    REFERENCING OLD TABLE AS deleted FOR EACH STATEMENT EXECUTE FUNCTION ledger_mark_deleted_days();

-- The overview's credit per project per day now comes from the rollups;
-- the first rollup after the upgrade folds every day of the history.
INSERT INTO ledger_dirty_days (day) SELECT day FROM ledger UNION SELECT day FROM confirmed_ledger;
DROP TABLE credit_daily;
