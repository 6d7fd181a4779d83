-- Placeholder so that this branch's migration 023 applies in its tests:
-- another branch owns number 021. Drop this file when merging that branch.
SELECT 1;
