-- Data as the previous release of Cobble (migrations 001 to 008) stores it,
-- for the upgrade test: an admin and two volunteers (password
-- "long-enough"), three computers, two projects, a reconciliation run, the
-- estimated and the confirmed ledger, and the totals derived from the
-- estimated ledger (each host_projects total is the sum of its ledger rows).
--
-- Amounts are in millionths. All-time sums the test expects:
--   ada: estimated 5000.75, confirmed 3400, 27 CPU hours, 2 GPU hours, 29 jobs ok, 1 error
--   bob: estimated 1000, confirmed 550, 10 CPU hours, 9 jobs ok

INSERT INTO users (id, email, name, password_hash, is_admin, time_zone, created_at) OVERRIDING SYSTEM VALUE VALUES
    (1, 'admin@example.org', 'Admin', '$2a$04$ppwA9m5LNOquqQS.bZc4ley2qyljo0RtyofkF/lRCbIfYtTzWS64O', true, 'UTC',
        '2025-05-01 09:00Z'),
    (2, 'ada@example.org', 'Ada', '$2a$04$W8gmAJMxSH1.8Qw0Izflkel3hcRu7pB7r7upqAf.jsocPYdXjaGa6', false, 'Europe/Berlin',
        '2025-05-02 10:00Z'),
    (3, 'bob@example.org', 'Bob', '$2a$04$OWyWhxy8G1.Zt.R1sinR.O.VxRN/QcK33B1NG/n8hnDEp4E7TZ0ym', false, 'UTC',
        '2025-05-03 11:00Z');
SELECT setval(pg_get_serial_sequence('users', 'id'), 3);

INSERT INTO projects (id, url, name, keywords, resources, authenticator, stats_url, account_email, account_userid, area)
    OVERRIDING SYSTEM VALUE VALUES
    (1, 'https://proj.example.org/', 'Proj', '{1,4}', '{CPU}', 'key-1', 'https://proj.example.org/stats/',
        'am@example.org', 42, 'Astronomy'),
    (2, 'https://gpu.example.org/', 'GPU Proj', '{9}', '{CPU,NVIDIA}', 'key-2', 'https://gpu.example.org/stats/', '', NULL, '');
SELECT setval(pg_get_serial_sequence('projects', 'id'), 2);

-- Each choice bumps the volunteer's prefs_version (migration 008's triggers).
INSERT INTO user_keywords (user_id, keyword_id, choice) VALUES (2, 1, 'yes'), (2, 9, 'no');
INSERT INTO user_projects (user_id, project_id, choice) VALUES (3, 2, 'exclude');

INSERT INTO hosts (id, user_id, opaque_token, host_cpid, domain_name, client_version, platforms, os_name, ncpus,
        p_fpops, m_nbytes, coprocs, created_at, last_rpc_at, rpc_count, budget_at) OVERRIDING SYSTEM VALUE VALUES
    (1, 2, 'host-token-1', 'cpid-ada-desktop', 'ada-desktop', '7.20.5', '{x86_64-pc-linux-gnu}', 'Linux Debian', 8,
        4e9, 16e9, '[{"type": "NVIDIA", "count": 1, "peak_flops": 1e13}]', '2025-06-01 08:00Z', '2025-06-10 06:00Z', 40,
        '2025-06-10 06:00Z'),
    (2, 2, 'host-token-2', 'cpid-ada-laptop', 'ada-laptop', '7.20.5', '{x86_64-pc-linux-gnu}', 'Linux Debian', 4,
        3e9, 8e9, '[]', '2025-06-05 08:00Z', '2025-06-10 07:00Z', 12, '2025-06-10 07:00Z'),
    (3, 3, 'host-token-3', 'cpid-bob', 'bob-pc', '7.24.1', '{windows_x86_64}', 'Microsoft Windows 11', 6,
        3.5e9, 32e9, '[]', '2025-06-02 08:00Z', '2025-06-10 05:00Z', 30, '2025-06-10 05:00Z');
SELECT setval(pg_get_serial_sequence('hosts', 'id'), 3);

INSERT INTO host_projects (host_id, project_id, user_id, assigned, attached, project_hostid,
        last_cpu_ec_micro, last_cpu_time_micro, last_gpu_ec_micro, last_gpu_time_micro, last_njobs_success, last_njobs_error,
        reported_at, total_cpu_ec_micro, total_cpu_time_micro, total_gpu_ec_micro, total_gpu_time_micro,
        total_njobs_success, total_njobs_error, avg_ec, avg_time, first_seen_at, reason) VALUES
    (1, 1, 2, true, true, 101, 3750500000, 79200000000, 0, 0, 22, 1, '2025-06-10 06:00Z',
        3750500000, 79200000000, 0, 0, 22, 1, 1800.5, '2025-06-10 06:00Z', '2025-06-01 08:00Z', 'keyword'),
    (1, 2, 2, true, true, 201, 100000000, 3600000000, 900250000, 7200000000, 4, 0, '2025-06-10 06:00Z',
        100000000, 3600000000, 900250000, 7200000000, 4, 0, 450.125, '2025-06-10 06:00Z', '2025-06-01 08:00Z', 'resource'),
    (2, 1, 2, true, true, 102, 250000000, 14400000000, 0, 0, 3, 0, '2025-06-10 07:00Z',
        250000000, 14400000000, 0, 0, 3, 0, 125, '2025-06-10 07:00Z', '2025-06-05 08:00Z', 'share'),
    (3, 1, 3, true, true, 103, 1000000000, 36000000000, 0, 0, 9, 0, '2025-06-10 05:00Z',
        1000000000, 36000000000, 0, 0, 9, 0, 500, '2025-06-10 05:00Z', '2025-06-02 08:00Z', 'share');

INSERT INTO ledger (host_id, project_id, day, user_id, cpu_ec_micro, cpu_time_micro, gpu_ec_micro, gpu_time_micro,
        njobs_success, njobs_error, clamped_cpu_ec_micro) VALUES
    (1, 1, '2025-06-08', 2, 1500000000, 36000000000, 0, 0, 10, 0, 0),
    (1, 1, '2025-06-09', 2, 2250500000, 43200000000, 0, 0, 12, 1, 0),
    (1, 2, '2025-06-09', 2, 100000000, 3600000000, 900250000, 7200000000, 4, 0, 0),
    (2, 1, '2025-06-09', 2, 250000000, 14400000000, 0, 0, 3, 0, 50000000),
    (3, 1, '2025-06-08', 3, 600000000, 21600000000, 0, 0, 5, 0, 0),
    (3, 1, '2025-06-09', 3, 400000000, 14400000000, 0, 0, 4, 0, 0);

INSERT INTO accounting_events (user_id, host_id, project_id, at, kind, detail) VALUES
    (2, 2, 1, '2025-06-09 12:00Z', 'clamp', '{"claimed": 300, "credited": 250}');

INSERT INTO reconcile_runs (id, project_id, started_at, finished_at, status, source, export_time,
        hosts_scanned, hosts_matched, orphans, missing) OVERRIDING SYSTEM VALUE VALUES
    (1, 1, '2025-06-08 00:00Z', '2025-06-08 00:01Z', 'ok', 'https://proj.example.org/stats/', '2025-06-07 23:00Z', 3, 2, 0, 1),
    (2, 1, '2025-06-10 00:00Z', '2025-06-10 00:01Z', 'ok', 'https://proj.example.org/stats/', '2025-06-09 23:00Z', 3, 2, 0, 1);
SELECT setval(pg_get_serial_sequence('reconcile_runs', 'id'), 2);

INSERT INTO export_credit (host_id, project_id, export_time, run_id, project_hostid, total_credit, expavg_credit, expavg_time)
    VALUES
    (1, 1, '2025-06-07 23:00Z', 1, 101, 10000, 1500, 1749337200),
    (1, 1, '2025-06-09 23:00Z', 2, 101, 13400, 1700, 1749510000),
    (3, 1, '2025-06-07 23:00Z', 1, 103, 2000, 500, 1749337200),
    (3, 1, '2025-06-09 23:00Z', 2, 103, 2550, 520, 1749510000);
INSERT INTO reconcile_missing (run_id, host_id, project_hostid) VALUES (1, 2, 102), (2, 2, 102);

INSERT INTO confirmed_ledger (host_id, project_id, day, user_id, granted_micro) VALUES
    (1, 1, '2025-06-08', 2, 1400000000),
    (1, 1, '2025-06-09', 2, 2000000000),
    (3, 1, '2025-06-08', 3, 550000000);

INSERT INTO audit_log (at, actor, actor_user_id, kind, subject, after) VALUES
    ('2025-05-04 12:00Z', 'admin@example.org', 1, 'project_add', 'project 1', '{"name": "Proj"}');
