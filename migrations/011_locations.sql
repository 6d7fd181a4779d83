-- Each computer its own settings: a volunteer's named locations (BOINC's
-- venues), each with its own compute preferences; the location of each
-- computer, its nickname, and its own choices per project.

-- A named location. The volunteer's compute_prefs row is the Default
-- location; computers at no location are there. Clients get one
-- <venue name="NAME"> block per location (docs/VENUES.md).
CREATE TABLE locations (
    user_id  bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    id       bigint      GENERATED ALWAYS AS IDENTITY,
    name     text        NOT NULL CHECK (char_length(name) BETWEEN 1 AND 32),
    preset   text        NOT NULL CHECK (preset IN ('standard', 'low_power', 'maximum', 'custom')),
    -- The values, as Cobble's ComputePrefs fields.
    prefs    jsonb       NOT NULL,
    -- When the values last changed.
    mod_time timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (user_id, id)
);
CREATE UNIQUE INDEX locations_name_key ON locations (user_id, lower(name));

CREATE TRIGGER locations_prefs_version AFTER INSERT OR UPDATE OR DELETE ON locations
    FOR EACH ROW EXECUTE FUNCTION bump_prefs_version();

-- The computer's location (NULL: Default) and the name its volunteer gave it.
ALTER TABLE hosts ADD COLUMN location_id bigint,
    ADD COLUMN nickname text NOT NULL DEFAULT '' CHECK (char_length(nickname) <= 64),
    ADD CONSTRAINT hosts_location_fkey FOREIGN KEY (user_id, location_id) REFERENCES locations (user_id, id);
CREATE UNIQUE INDEX hosts_user_id_key ON hosts (user_id, id);

-- A volunteer's choice for one project on one computer, above their own
-- choices for all computers; a project without a row follows those.
CREATE TABLE host_project_choices (
    user_id    bigint NOT NULL,
    host_id    bigint NOT NULL,
    project_id bigint NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    choice     text   NOT NULL CHECK (choice IN ('choose', 'exclude')),
    PRIMARY KEY (user_id, host_id, project_id),
    FOREIGN KEY (user_id, host_id) REFERENCES hosts (user_id, id) ON DELETE CASCADE
);

-- A project given to a host because the volunteer chose it for that host.
ALTER TABLE host_projects DROP CONSTRAINT host_projects_reason_check;
ALTER TABLE host_projects ADD CONSTRAINT host_projects_reason_check
    CHECK (reason IN ('', 'always', 'host_always', 'keyword', 'share', 'resource'));
