-- The steady-state RPC finds its volunteer by the AM token's hash and its
-- host by the host token, in one statement planned once per connection
-- (generic plans, accounting/store_sync_read.go). Migration 018 put
-- user_id into both keys, (token_hash, user_id) and (opaque_token,
-- user_id): the planner could then no longer prove that a token names one
-- row, and where statistics were missing or stale it planned the token
-- check as a loop over every volunteer and the host's reads as sequential
-- scans of host_projects. The RPC's throughput halved at 200 volunteers
-- (docs/PERFORMANCE.md, "The keys by volunteer and the RPC").
--
-- Each token is unique on its own again. The key by volunteer that 018
-- made for hosts stays the primary key that the foreign keys refer to; a
-- distribution by volunteer would move these two lookups to directories
-- copied to every node, as user_emails and user_feed_tokens
-- (docs/SCALING.md).
ALTER TABLE am_tokens DROP CONSTRAINT am_tokens_pkey;
ALTER TABLE am_tokens ADD PRIMARY KEY (token_hash);

ALTER TABLE hosts DROP CONSTRAINT hosts_opaque_token_key;
ALTER TABLE hosts ADD CONSTRAINT hosts_opaque_token_key UNIQUE (opaque_token);
