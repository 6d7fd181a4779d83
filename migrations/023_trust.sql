-- Computers a volunteer can trust (issue 32).
--
-- A computer can wind down (finish its tasks, fetch no new ones) or pause
-- (suspend its projects) until the volunteer resumes it, or until
-- pause_until, when its next RPC resumes it by itself. The steady-state
-- RPC reads these columns in the query that locks the host, so the state
-- costs no round trip. resume_pending says that the client was told to
-- suspend its projects and has not yet been told to resume them: BOINC
-- clients keep a project suspended until an account manager's reply says
-- <suspend>0</suspend>.
ALTER TABLE hosts
    ADD COLUMN pause_mode text NOT NULL DEFAULT 'none'
        CHECK (pause_mode IN ('none', 'wind_down', 'pause')),
    ADD COLUMN pause_until timestamptz,
    ADD COLUMN resume_pending boolean NOT NULL DEFAULT false;

-- Where a day's number came from: beside each ledger row, how many RPCs
-- added to it and the first and last of them. The RPC's ledger upsert
-- writes them; no per-RPC row is kept. Adding columns to the partitioned
-- parent adds them to every partition, the DEFAULT one included, in the
-- same order, so the partition upkeep's LIKE and SELECT * stay aligned.
ALTER TABLE ledger
    ADD COLUMN reports integer NOT NULL DEFAULT 0,
    ADD COLUMN first_report_at timestamptz,
    ADD COLUMN last_report_at timestamptz;
