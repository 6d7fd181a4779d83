-- A third rollup, per (volunteer, project, day), so that a volunteer's
-- dashboard reads about a thousand rows a year instead of one per
-- computer, project and day. The periodic rollup folds it with the other
-- two (accounting/store_rollups.go), for the days it settles. It covers
-- the days whose per-host rows are kept (from ledger_detail_from() on);
-- the retired days stay in ledger_volunteer_days.
-- Readers take it for the settled days (before rollup_settled_before()
-- and not marked in ledger_dirty_days) and the ledger for the others, so
-- what they show is the ledger's sums at every moment.
--
-- The same columns as ledger_volunteer_days, the retired days' totals.
CREATE TABLE rollup_volunteer_days (LIKE ledger_volunteer_days INCLUDING DEFAULTS);
ALTER TABLE rollup_volunteer_days
    ADD PRIMARY KEY (user_id, day, project_id),
    ADD FOREIGN KEY (user_id) REFERENCES users (id) ON DELETE CASCADE,
    ADD FOREIGN KEY (project_id) REFERENCES projects (id) ON DELETE CASCADE;
CREATE INDEX rollup_volunteer_days_day_idx ON rollup_volunteer_days (day);

-- Until a round has folded a day, readers take that day from the ledger:
-- the first round after the upgrade folds every day of the history. The
-- days with ledger rows are those of rollup_days, but for the days pending
-- a round (already read from the ledger).
INSERT INTO ledger_dirty_days (day)
    SELECT day FROM rollup_days WHERE day >= ledger_detail_from() ON CONFLICT DO NOTHING;
