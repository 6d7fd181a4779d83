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

-- The first day whose rollups may lag the ledger: two days before the
-- latest rollup round's day ('-infinity' before any round). The rollups of
-- the days before it equal the ledger's sums, but for the days marked in
-- ledger_dirty_days (see accounting/store_rollups.go).
CREATE FUNCTION rollup_settled_before() RETURNS date LANGUAGE sql STABLE AS $$
    SELECT coalesce((SELECT (to_timestamp(value * 86400) AT TIME ZONE 'UTC')::date - 2
                     FROM system_counts WHERE name = 'rollup_day'), '-infinity'::date)
$$;

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

-- Retention (--ledger-detail-months): months older than the detail kept
-- lose their per-host rows, by detaching and dropping their partitions.
-- What they held stays as per-(volunteer, project, day) totals in
-- ledger_volunteer_days (host_id 0 in the ledger_by_volunteer views), and
-- as per-(host, project) sums in ledger_retired_totals, which the lifetime
-- totals are checked against together with the ledger.
CREATE TABLE ledger_retired_months (
    month date PRIMARY KEY CHECK (month = date_trunc('month', month))
);

CREATE TABLE ledger_volunteer_days (
    user_id          bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    project_id       bigint NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    day              date   NOT NULL,
    cpu_ec_micro     bigint NOT NULL DEFAULT 0,
    cpu_time_micro   bigint NOT NULL DEFAULT 0,
    gpu_ec_micro     bigint NOT NULL DEFAULT 0,
    gpu_time_micro   bigint NOT NULL DEFAULT 0,
    njobs_success    bigint NOT NULL DEFAULT 0,
    njobs_error      bigint NOT NULL DEFAULT 0,
    clamped_cpu_ec_micro   bigint NOT NULL DEFAULT 0,
    clamped_cpu_time_micro bigint NOT NULL DEFAULT 0,
    clamped_gpu_ec_micro   bigint NOT NULL DEFAULT 0,
    clamped_gpu_time_micro bigint NOT NULL DEFAULT 0,
    clamped_njobs_success  bigint NOT NULL DEFAULT 0,
    clamped_njobs_error    bigint NOT NULL DEFAULT 0,
    granted_micro    bigint NOT NULL DEFAULT 0,
    -- The volunteer's hosts with a ledger row that day for the project.
    hosts            bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (user_id, project_id, day)
);

CREATE TABLE ledger_retired_totals (
    host_id          bigint NOT NULL,
    project_id       bigint NOT NULL,
    user_id          bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    cpu_ec_micro     bigint NOT NULL DEFAULT 0,
    cpu_time_micro   bigint NOT NULL DEFAULT 0,
    gpu_ec_micro     bigint NOT NULL DEFAULT 0,
    gpu_time_micro   bigint NOT NULL DEFAULT 0,
    njobs_success    bigint NOT NULL DEFAULT 0,
    njobs_error      bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (host_id, project_id, user_id),
    FOREIGN KEY (host_id, project_id) REFERENCES host_projects (host_id, project_id) ON DELETE CASCADE
);

-- The first day whose per-host rows are kept: the day after the last
-- retired month ('-infinity' when none is).
CREATE FUNCTION ledger_detail_from() RETURNS date LANGUAGE sql STABLE AS $$
    SELECT coalesce((max(month) + interval '1 month')::date, '-infinity'::date) FROM ledger_retired_months
$$;

-- A volunteer's ledger and confirmed ledger over the whole history: the
-- per-host rows, and for retired months the per-volunteer totals, as host 0.
CREATE VIEW ledger_by_volunteer AS
    SELECT user_id, host_id, project_id, day, cpu_ec_micro, cpu_time_micro, gpu_ec_micro, gpu_time_micro,
        njobs_success, njobs_error, clamped_cpu_ec_micro, clamped_cpu_time_micro, clamped_gpu_ec_micro,
        clamped_gpu_time_micro, clamped_njobs_success, clamped_njobs_error
    FROM ledger
    UNION ALL
    SELECT user_id, 0, project_id, day, cpu_ec_micro, cpu_time_micro, gpu_ec_micro, gpu_time_micro,
        njobs_success, njobs_error, clamped_cpu_ec_micro, clamped_cpu_time_micro, clamped_gpu_ec_micro,
        clamped_gpu_time_micro, clamped_njobs_success, clamped_njobs_error
    FROM ledger_volunteer_days
    WHERE hosts > 0;

CREATE VIEW confirmed_by_volunteer AS
    SELECT user_id, host_id, project_id, day, granted_micro FROM confirmed_ledger
    UNION ALL
    SELECT user_id, 0, project_id, day, granted_micro FROM ledger_volunteer_days WHERE granted_micro > 0;

-- Retires the oldest month before the month of before that still has
-- rows or partitions: folds its rows (for a month retired before, the rows
-- that arrived since, in the DEFAULT partitions) into ledger_volunteer_days
-- and ledger_retired_totals, then detaches and drops its partitions.
-- Returns how many months it folded (0 or 1): one per call, so that the
-- lock that detaching takes on the ledger is held for one month's fold
-- only. Callers serialise it with an advisory lock.
CREATE FUNCTION ledger_months_retire(before date) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
    folded integer := 0;
    first  date;
    next   date;
    parent text;
    part   text;
BEGIN
    FOR first IN
        SELECT DISTINCT m FROM (
            SELECT to_date(substring(c.relname FROM '_p([0-9]{4}_[0-9]{2})$'), 'YYYY_MM') AS m
            FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
            WHERE i.inhparent IN ('ledger'::regclass, 'confirmed_ledger'::regclass)
                AND c.relname ~ '_p[0-9]{4}_[0-9]{2}$'
            UNION SELECT date_trunc('month', day)::date FROM ledger_default
            UNION SELECT date_trunc('month', day)::date FROM confirmed_ledger_default
        ) AS months
        WHERE m < date_trunc('month', before) ORDER BY m LIMIT 1
    LOOP
        next := (first + interval '1 month')::date;
        INSERT INTO ledger_volunteer_days (user_id, project_id, day, cpu_ec_micro, cpu_time_micro, gpu_ec_micro, gpu_time_micro, njobs_success, njobs_error, clamped_cpu_ec_micro, clamped_cpu_time_micro, clamped_gpu_ec_micro, clamped_gpu_time_micro, clamped_njobs_success, clamped_njobs_error, granted_micro, hosts)
        SELECT coalesce(l.user_id, c.user_id), coalesce(l.project_id, c.project_id), coalesce(l.day, c.day),
            coalesce(l.cpu_ec_micro, 0), coalesce(l.cpu_time_micro, 0), coalesce(l.gpu_ec_micro, 0), coalesce(l.gpu_time_micro, 0), coalesce(l.njobs_success, 0), coalesce(l.njobs_error, 0), coalesce(l.clamped_cpu_ec_micro, 0), coalesce(l.clamped_cpu_time_micro, 0), coalesce(l.clamped_gpu_ec_micro, 0), coalesce(l.clamped_gpu_time_micro, 0), coalesce(l.clamped_njobs_success, 0), coalesce(l.clamped_njobs_error, 0),
            coalesce(c.granted_micro, 0), coalesce(l.hosts, 0)
        FROM (SELECT user_id, project_id, day, sum(cpu_ec_micro) AS cpu_ec_micro, sum(cpu_time_micro) AS cpu_time_micro, sum(gpu_ec_micro) AS gpu_ec_micro, sum(gpu_time_micro) AS gpu_time_micro, sum(njobs_success) AS njobs_success, sum(njobs_error) AS njobs_error, sum(clamped_cpu_ec_micro) AS clamped_cpu_ec_micro, sum(clamped_cpu_time_micro) AS clamped_cpu_time_micro, sum(clamped_gpu_ec_micro) AS clamped_gpu_ec_micro, sum(clamped_gpu_time_micro) AS clamped_gpu_time_micro, sum(clamped_njobs_success) AS clamped_njobs_success, sum(clamped_njobs_error) AS clamped_njobs_error, count(*) AS hosts
              FROM ledger WHERE day >= first AND day < next GROUP BY user_id, project_id, day) AS l
        FULL JOIN (SELECT user_id, project_id, day, sum(granted_micro) AS granted_micro
              FROM confirmed_ledger WHERE day >= first AND day < next GROUP BY user_id, project_id, day) AS c
            ON c.user_id = l.user_id AND c.project_id = l.project_id AND c.day = l.day
        ON CONFLICT (user_id, project_id, day) DO UPDATE SET
            cpu_ec_micro = ledger_volunteer_days.cpu_ec_micro + EXCLUDED.cpu_ec_micro,
            cpu_time_micro = ledger_volunteer_days.cpu_time_micro + EXCLUDED.cpu_time_micro,
            gpu_ec_micro = ledger_volunteer_days.gpu_ec_micro + EXCLUDED.gpu_ec_micro,
            gpu_time_micro = ledger_volunteer_days.gpu_time_micro + EXCLUDED.gpu_time_micro,
            njobs_success = ledger_volunteer_days.njobs_success + EXCLUDED.njobs_success,
            njobs_error = ledger_volunteer_days.njobs_error + EXCLUDED.njobs_error,
            clamped_cpu_ec_micro = ledger_volunteer_days.clamped_cpu_ec_micro + EXCLUDED.clamped_cpu_ec_micro,
            clamped_cpu_time_micro = ledger_volunteer_days.clamped_cpu_time_micro + EXCLUDED.clamped_cpu_time_micro,
            clamped_gpu_ec_micro = ledger_volunteer_days.clamped_gpu_ec_micro + EXCLUDED.clamped_gpu_ec_micro,
            clamped_gpu_time_micro = ledger_volunteer_days.clamped_gpu_time_micro + EXCLUDED.clamped_gpu_time_micro,
            clamped_njobs_success = ledger_volunteer_days.clamped_njobs_success + EXCLUDED.clamped_njobs_success,
            clamped_njobs_error = ledger_volunteer_days.clamped_njobs_error + EXCLUDED.clamped_njobs_error,
            granted_micro = ledger_volunteer_days.granted_micro + EXCLUDED.granted_micro,
            hosts = greatest(ledger_volunteer_days.hosts, EXCLUDED.hosts);
        INSERT INTO ledger_retired_totals (host_id, project_id, user_id, cpu_ec_micro, cpu_time_micro, gpu_ec_micro, gpu_time_micro, njobs_success, njobs_error)
        SELECT host_id, project_id, user_id, sum(cpu_ec_micro), sum(cpu_time_micro), sum(gpu_ec_micro), sum(gpu_time_micro), sum(njobs_success), sum(njobs_error)
        FROM ledger WHERE day >= first AND day < next GROUP BY host_id, project_id, user_id
        ON CONFLICT (host_id, project_id, user_id) DO UPDATE SET
            cpu_ec_micro = ledger_retired_totals.cpu_ec_micro + EXCLUDED.cpu_ec_micro,
            cpu_time_micro = ledger_retired_totals.cpu_time_micro + EXCLUDED.cpu_time_micro,
            gpu_ec_micro = ledger_retired_totals.gpu_ec_micro + EXCLUDED.gpu_ec_micro,
            gpu_time_micro = ledger_retired_totals.gpu_time_micro + EXCLUDED.gpu_time_micro,
            njobs_success = ledger_retired_totals.njobs_success + EXCLUDED.njobs_success,
            njobs_error = ledger_retired_totals.njobs_error + EXCLUDED.njobs_error;
        FOREACH parent IN ARRAY ARRAY['ledger', 'confirmed_ledger'] LOOP
            part := parent || '_p' || to_char(first, 'YYYY_MM');
            IF to_regclass(part) IS NOT NULL THEN
                EXECUTE format('ALTER TABLE %I DETACH PARTITION %I', parent, part);
                EXECUTE format('DROP TABLE %I', part);
            END IF;
            EXECUTE format('DELETE FROM %I WHERE day >= $1 AND day < $2', parent || '_default') USING first, next;
        END LOOP;
        INSERT INTO ledger_retired_months (month) VALUES (first) ON CONFLICT DO NOTHING;
        folded := folded + 1;
    END LOOP;
    RETURN folded;
END
$$;

-- Keys by volunteer (docs/SCALING.md): two more volunteer-owned tables
-- carry user_id in their primary keys. The rows stay as they are; only
-- the keys' indexes are rebuilt.
ALTER TABLE accounting_events DROP CONSTRAINT accounting_events_pkey, ADD PRIMARY KEY (id, user_id);
ALTER TABLE reconcile_unverified DROP CONSTRAINT reconcile_unverified_pkey,
    ADD PRIMARY KEY (run_id, host_id, project_hostid, user_id);
