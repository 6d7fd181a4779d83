-- A reconciliation run whose process died while it ran is marked
-- abandoned by the next runner of its project.
ALTER TABLE reconcile_runs
    DROP CONSTRAINT reconcile_runs_status_check,
    ADD CONSTRAINT reconcile_runs_status_check
        CHECK (status IN ('running', 'ok', 'unchanged', 'failed', 'abandoned'));
