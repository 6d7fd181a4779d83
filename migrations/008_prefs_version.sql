-- A number that changes whenever a volunteer's preferences do, so that an
-- RPC can tell whether the preferences it keeps in memory are current
-- without reading them. Triggers bump it in the transaction of every change
-- to user_projects, user_keywords and compute_prefs, whoever makes it
-- (settings pages, the CLI, cascades from a deleted project).
ALTER TABLE users ADD COLUMN prefs_version bigint NOT NULL DEFAULT 0;

CREATE FUNCTION bump_prefs_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    -- OLD is NULL for an INSERT, NEW for a DELETE.
    UPDATE users SET prefs_version = prefs_version + 1 WHERE id IN (OLD.user_id, NEW.user_id);
    RETURN NULL;
END
$$;

CREATE TRIGGER user_projects_prefs_version AFTER INSERT OR UPDATE OR DELETE ON user_projects
    FOR EACH ROW EXECUTE FUNCTION bump_prefs_version();
CREATE TRIGGER user_keywords_prefs_version AFTER INSERT OR UPDATE OR DELETE ON user_keywords
    FOR EACH ROW EXECUTE FUNCTION bump_prefs_version();
CREATE TRIGGER compute_prefs_prefs_version AFTER INSERT OR UPDATE OR DELETE ON compute_prefs
    FOR EACH ROW EXECUTE FUNCTION bump_prefs_version();
