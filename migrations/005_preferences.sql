-- Science keywords as BOINC's numeric ids, volunteers' preferences (keywords,
-- compute settings) and why a host was given each project.

-- Project keywords become BOINC's keyword ids. Names already stored are
-- mapped to their ids (in any letter case, with a few common short names);
-- anything else is dropped.
ALTER TABLE projects ADD COLUMN keyword_ids integer[] NOT NULL DEFAULT '{}';
UPDATE projects p SET keyword_ids = coalesce((
    SELECT array_agg(DISTINCT k.id ORDER BY k.id)
    FROM unnest(p.keywords) AS w (name)
    JOIN (VALUES
        (1, 'astronomy'), (2, 'search for extraterrestrial intelligence'),
        (3, 'detection and study of pulsars'), (4, 'detection and study of gravitational waves'),
        (5, 'cosmology'), (6, 'physics'), (7, 'particle physics'), (8, 'nanoscience'),
        (9, 'biology and medicine'), (10, 'drug discovery'), (11, 'protein research'),
        (12, 'genetics and phylogeny'), (13, 'disease research'), (17, 'diabetes research'),
        (14, 'cancer research'), (18, 'prostate cancer research'), (19, 'breast cancer research'),
        (15, 'mathematics and computer science'), (32, 'number theory'), (33, 'cryptography'),
        (16, 'artificial intelligence and cognitive science'), (29, 'earth sciences'),
        (34, 'environmental research'), (35, 'climate research'), (20, 'europe'), (27, 'cern'),
        (36, 'czech republic'), (37, 'charles university in prague'), (21, 'germany'),
        (26, 'albert einstein institute for gravitational physics'), (38, 'rechenkraft.net e.v'),
        (39, 'hochschule rheinmain university of applied sciences'), (40, 'hungary'),
        (41, 'ireland'), (42, 'university college dublin'), (43, 'poland'), (44, 'russia'),
        (45, 'southwest state university, russia'), (46, 'russian academy of science'),
        (30, 'spain'), (31, 'san jorge university, zaragoza, spain'),
        (47, 'barcelona biomedical research park'), (48, 'united kingdom'),
        (49, 'oxford university'), (22, 'asia'), (50, 'china'), (23, 'americas'),
        (24, 'united states'), (25, 'university of california, berkeley'),
        (28, 'university of washington'), (51, 'university of dayton'),
        (52, 'wright state university'), (53, 'university of southern california'),
        (54, 'california state university fullerton'), (55, 'arizona state university'),
        (2, 'seti'), (3, 'pulsars'), (4, 'gravitational waves'), (9, 'biology'), (9, 'medicine'),
        (9, 'biomedicine'), (11, 'proteins'), (12, 'genetics'), (13, 'disease'), (14, 'cancer'),
        (17, 'diabetes'), (15, 'mathematics'), (15, 'math'), (15, 'computer science'),
        (16, 'ai'), (29, 'earth science'), (34, 'environment'),
        (35, 'climate'), (1, 'astrophysics'), (24, 'usa'), (24, 'us'), (48, 'uk')
    ) AS k (id, name) ON k.name = lower(trim(w.name)) OR k.id::text = trim(w.name)), '{}');
ALTER TABLE projects DROP COLUMN keywords;
ALTER TABLE projects RENAME COLUMN keyword_ids TO keywords;
ALTER TABLE projects ADD CONSTRAINT projects_keywords_check CHECK (0 < ALL (keywords));

-- A volunteer's answer per keyword; a keyword without a row is "maybe".
CREATE TABLE user_keywords (
    user_id    bigint  NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    keyword_id integer NOT NULL CHECK (keyword_id > 0),
    choice     text    NOT NULL CHECK (choice IN ('yes', 'no')),
    PRIMARY KEY (user_id, keyword_id)
);

-- A volunteer's compute preferences, sent to clients as global preferences.
-- No row: the volunteer never chose, and clients keep their own.
CREATE TABLE compute_prefs (
    user_id  bigint      PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    preset   text        NOT NULL CHECK (preset IN ('standard', 'low_power', 'maximum', 'custom')),
    -- The values, as Cobble's ComputePrefs fields.
    prefs    jsonb       NOT NULL,
    -- When the values last changed: the <mod_time> clients compare.
    mod_time timestamptz NOT NULL DEFAULT now()
);

-- Why Cobble gave a host a project, for the computer page.
ALTER TABLE host_projects ADD COLUMN reason text NOT NULL DEFAULT ''
    CHECK (reason IN ('', 'always', 'keyword', 'share', 'resource'));
