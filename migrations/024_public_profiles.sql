-- A volunteer's public side (issue 33): the public profile, off until the
-- volunteer turns it on, and the certificates they issue. Both belong to
-- one volunteer, so both carry user_id in their primary key; the handle
-- and the verification code are unique on their own, the keys by which a
-- visitor finds the volunteer (lookup keys, migrations/distribution_test.go).

CREATE TABLE public_profiles (
    user_id       bigint      PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    -- 3 to 32 of a-z, 0-9 and '-'; the reserved words are refused by
    -- accounting (public_types.go), which knows the routes.
    handle        text        NOT NULL UNIQUE CHECK (handle ~ '^[a-z0-9-]{3,32}$'),
    -- The one switch: off hides every public page, the badge and the
    -- listing on the leaderboards; the ticks below are kept meanwhile.
    public        boolean     NOT NULL DEFAULT false,
    show_totals   boolean     NOT NULL DEFAULT false,
    show_projects boolean     NOT NULL DEFAULT false,
    show_areas    boolean     NOT NULL DEFAULT false,
    show_chart    boolean     NOT NULL DEFAULT false,
    list_me       boolean     NOT NULL DEFAULT false,
    updated_at    timestamptz NOT NULL DEFAULT now()
);
-- The leaderboards read the volunteers listed.
CREATE INDEX public_profiles_listed_idx ON public_profiles (user_id) WHERE public AND list_me;

-- A certificate states the facts it certified when it was issued, and
-- never changes but for its withdrawal. Credit in millionths, as the
-- ledger; the projects by name as they were then.
CREATE TABLE certificates (
    user_id         bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    code            text        NOT NULL UNIQUE CHECK (code ~ '^[a-z2-7]{26}$'),
    name            text        NOT NULL CHECK (name <> '' AND length(name) <= 100),
    from_day        date        NOT NULL,
    to_day          date        NOT NULL CHECK (to_day >= from_day),
    confirmed_micro bigint      NOT NULL CHECK (confirmed_micro >= 0),
    estimated_micro bigint      NOT NULL CHECK (estimated_micro >= 0),
    projects        text[]      NOT NULL,
    language        text        NOT NULL,
    issued_at       timestamptz NOT NULL DEFAULT now(),
    withdrawn_at    timestamptz,
    PRIMARY KEY (user_id, code)
);
