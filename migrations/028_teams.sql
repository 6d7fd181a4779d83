-- Teams (issue 43): Cobble's own, since the project accounts are shared.
-- A team's credit is what its members earned on the days they were
-- members, and a listed volunteer's place in Cobble's statistics export.

CREATE TABLE teams (
    id          bigserial   PRIMARY KEY,
    name        text        NOT NULL CHECK (name <> '' AND length(name) <= 64),
    -- The name folded for case and Unicode (accounting), unique: two teams
    -- cannot differ only in how their names are written.
    name_key    text        NOT NULL UNIQUE,
    -- BOINC's team types: 1 club, 2 company, 3 primary school, 4 secondary
    -- school, 5 junior college, 6 university or department, 7 government
    -- agency.
    type        smallint    NOT NULL CHECK (type BETWEEN 1 AND 7),
    country     text        NOT NULL DEFAULT '' CHECK (length(country) <= 64),
    url         text        NOT NULL DEFAULT '' CHECK (length(url) <= 256),
    description text        NOT NULL DEFAULT '' CHECK (length(description) <= 4000),
    -- Open teams take anyone; closed ones only those with the invitation.
    open        boolean     NOT NULL DEFAULT true,
    -- Who founded it, for the daily limit of new teams; the team is
    -- managed by the member whose row says founder (team_members).
    created_by  bigint      NOT NULL,
    -- The invitation link's code: random, renewed to revoke the old one.
    invite_code text        NOT NULL UNIQUE CHECK (invite_code ~ '^[a-z2-7]{26}$'),
    -- Hidden by an admin: on no public page, board or export.
    hidden      boolean     NOT NULL DEFAULT false,
    created_at  timestamptz NOT NULL DEFAULT now(),
    -- The sums of the team's rollup_team_days rows (all of them, and the
    -- confirmed credit of the 30 days up to the rollups' last), and
    -- BOINC's recent average of its confirmed credit (Cobblestones a day,
    -- as of expavg_time), kept by the rollup round that folds the team's
    -- days: the list of teams and the boards read one row a team.
    ec_micro      bigint      NOT NULL DEFAULT 0,
    granted_micro bigint      NOT NULL DEFAULT 0,
    granted_30d_micro bigint  NOT NULL DEFAULT 0,
    expavg        float8      NOT NULL DEFAULT 0,
    expavg_time   timestamptz
);
-- Who founded teams lately, for the daily limit.
CREATE INDEX teams_created_by_idx ON teams (created_by, created_at);

-- When each volunteer founded teams in the last day, for the daily limit,
-- which a team's deletion must not reset: pruned as the volunteer founds
-- more.
CREATE TABLE team_foundings (
    user_id    bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    founded_at timestamptz NOT NULL,
    PRIMARY KEY (user_id, founded_at)
);

-- Memberships, in the volunteer's days (their time zone, as the ledger's):
-- a day's credit counts for the team the volunteer was in at the day's
-- end. Joining on day D makes the row (D, NULL); leaving on day D sets
-- until_day = D, or deletes the row if it began on D. Days before the
-- volunteer's today never change, so a team's settled history never moves
-- when someone joins or leaves.
CREATE TABLE team_members (
    user_id   bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    team_id   bigint      NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
    first_day date        NOT NULL,
    until_day date        CHECK (until_day > first_day),
    joined_at timestamptz NOT NULL DEFAULT now(),
    -- The member who manages the team: renames it, renews the invitation,
    -- hands it over or deletes it. One current member per team.
    founder   boolean     NOT NULL DEFAULT false,
    PRIMARY KEY (user_id, first_day)
);
-- One team at a time.
CREATE UNIQUE INDEX team_members_current_idx ON team_members (user_id) WHERE until_day IS NULL;
CREATE INDEX team_members_team_idx ON team_members (team_id, first_day);
-- A team's current members: counted on every team page, and probed for
-- each public profile while a team page lists its members' handles (a
-- 5,000-member team's page read 10.3 ms of it through the index above,
-- 2.5 ms through this one, at 50 M ledger rows).
CREATE INDEX team_members_team_current_idx ON team_members (team_id, user_id) WHERE until_day IS NULL;

-- A team's credit per day, folded by the periodic rollup from
-- rollup_volunteer_days for the days it settles, with the memberships of
-- each day: credit in millionths, as the ledger.
CREATE TABLE rollup_team_days (
    team_id       bigint NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
    day           date   NOT NULL,
    ec_micro      bigint NOT NULL DEFAULT 0,
    granted_micro bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (team_id, day)
);
CREATE INDEX rollup_team_days_day_idx ON rollup_team_days (day);

-- Cobble's statistics export lists only volunteers who opt in, each under
-- a random cross-project id that says nothing about them and that they
-- can renew.
ALTER TABLE public_profiles
    ADD COLUMN in_stats   boolean NOT NULL DEFAULT false,
    ADD COLUMN stats_cpid text    UNIQUE CHECK (stats_cpid ~ '^[0-9a-f]{32}$');
CREATE INDEX public_profiles_in_stats_idx ON public_profiles (user_id) WHERE in_stats;

-- A team whose last member left (or whose account was deleted) is removed;
-- one whose founder left is handed to its longest-standing member. The
-- trigger covers every way a membership ends, the cascade of an account's
-- deletion included, and locks the team's row, so that members leaving
-- at once (a deleted account and a leave) see each other.
CREATE FUNCTION team_members_ended() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    t bigint;
BEGIN
    FOR t IN SELECT DISTINCT team_id FROM ended LOOP
        -- One change of a team's members at a time: the checks below (each
        -- statement sees what committed before it) then see every other.
        PERFORM 1 FROM teams WHERE id = t FOR UPDATE;
        IF NOT EXISTS (SELECT 1 FROM team_members WHERE team_id = t AND until_day IS NULL) THEN
            DELETE FROM teams WHERE id = t;
        ELSIF NOT EXISTS (SELECT 1 FROM team_members WHERE team_id = t AND until_day IS NULL AND founder) THEN
            UPDATE team_members SET founder = true
            WHERE (user_id, first_day) = (
                SELECT user_id, first_day FROM team_members
                WHERE team_id = t AND until_day IS NULL ORDER BY joined_at, user_id LIMIT 1);
        END IF;
    END LOOP;
    RETURN NULL;
END $$;
CREATE TRIGGER team_members_deleted AFTER DELETE ON team_members
    REFERENCING OLD TABLE AS ended FOR EACH STATEMENT EXECUTE FUNCTION team_members_ended();
CREATE TRIGGER team_members_left AFTER UPDATE ON team_members
    REFERENCING NEW TABLE AS ended FOR EACH STATEMENT EXECUTE FUNCTION team_members_ended();

-- The admin's changes of teams are audited.
ALTER TABLE audit_log DROP CONSTRAINT audit_log_kind_check;
ALTER TABLE audit_log ADD CONSTRAINT audit_log_kind_check
    CHECK (kind IN ('project_add', 'project_edit', 'project_status', 'project_import', 'run_now',
                    'user_disable', 'user_enable', 'admin_grant', 'password_reset_sent',
                    'two_factor_reset', 'report_answer', 'team_rename', 'team_hide', 'team_delete'));
