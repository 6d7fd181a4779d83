-- A placeholder that keeps the numbering whole on this branch alone: the
-- number belongs to another branch's migration, which replaces this file
-- when the branches merge. It changes nothing.
SELECT 1;
