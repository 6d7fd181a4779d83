// Package boinctest drives a real BOINC client for Cobble's end-to-end
// tests.
//
// Start runs the Debian boinc-client's `boinc` (7.20.5) in a t.TempDir()
// with its GUI RPC port on 127.0.0.1, and Client's methods run boinccmd
// against it. Project is a stand-in BOINC project on 127.0.0.1 for the
// client to attach to when an account manager hands it out. The client is
// configured so that it contacts nothing but the servers a test gives it
// (checked with strace: only 127.0.0.1). Start skips the test when boinc
// is not installed, and fails it instead when the environment has CI=true.
//
// A typical test:
//
//	proj := boinctest.NewProject(t)
//	// ... start Cobble's AM on 127.0.0.1, make it hand out proj.URL() ...
//	c := boinctest.Start(t)
//	out, err := c.JoinAcctMgr(ctx, amURL, "name", "password")
//	if err != nil || !boinctest.ParseAMOutput(out).OK() { ... }
//	// wait for proj.MasterFetches() > 0, then c.SyncAcctMgr(ctx) ...
//	c.Stop()
//	c.EditProjectCounters(t, proj.URL(), map[string]string{"cpu_ec": "12345.678"})
//	c.Restart(t)
//	c.SyncAcctMgr(ctx) // the AM's request now carries <cpu_ec>12345.678000</cpu_ec>
//
// # What the real client does (measured with boinc 7.20.5)
//
// Times. Start takes about 0.3 s, Restart 0.3 s, Stop about 1 s. A join or
// a sync takes about 1.0 s: boinccmd asks for the result once a second and
// the client finishes an RPC to a local server within its 1-second loop.
// After the join reply hands out a project, the client fetches the
// project's master page within 0-5 s (it looks for scheduler work every
// 5 s; 2.5 s observed), then sends its first scheduler request about 5 s
// later (the project's host id reaches the client about 10 s after the
// join). The project is listed, and reported to the AM, as soon as the
// join reply has been processed, with <hostid>0</hostid> and an empty
// <project_name> until that scheduler reply arrives.
//
// boinccmd's output for --join_acct_mgr and --acct_mgr sync (exactly; the
// first pair of lines is repeated once a second while the RPC lasts):
//
//	success:
//	    polling for reply
//	    poll status: operation in progress
//	    polling for reply
//	reply with <error_num>-206</error_num> (with or without <error_msg>):
//	    polling for reply
//	    poll status: operation in progress
//	    polling for reply
//	    poll status: bad password
//	reply with only <error_msg>Go away</error_msg>:
//	    polling for reply
//	    poll status: operation in progress
//	    polling for reply
//	    Messages from account manager:
//	    Go away
//	HTTP failure (connection refused, HTTP 500):
//	    polling for reply
//	    poll status: operation in progress
//	    ... the same two lines once a second, forever
//	URL the client rejects (e.g. http://localhost:PORT/), nothing sent:
//	    polling for reply
//	    poll status: invalid URL
//	an AM RPC is already in flight (JoinAcctMgr and SyncAcctMgr retry):
//	    polling for reply
//	    poll status: retry
//	sync with no account manager:
//	    DD-Mon-YYYY HH:MM:SS: GUI RPC error: bad arg
//	join while attached to another AM, or to the same AM under a URL
//	that differs from the stored one (e.g. without the trailing slash):
//	    DD-Mon-YYYY HH:MM:SS: GUI RPC error: attached to a different AM - detach first
//
// An unparsable reply, and a reply whose signing key differs from the
// stored one, print the same as a success. The client's event log
// (Client.Log, WaitLog) tells them apart: "Account manager contact
// succeeded" on success (followed by "Inconsistent signing key from account
// manager" when the key differs, and nothing of the reply is used), "AM
// reply parse error", "Message from account manager: bad password" (or
// ": " + the <error_msg>), "AM RPC HTTP failure: connect() failed",
// "AM RPC HTTP failure: transient HTTP error" (HTTP 5xx). The reply's
// <message> tags appear only in the log, as "Account manager: TEXT".
// After a failed RPC an attached client tries again by itself after
// 5-10 minutes, the wait doubling up to a day; a failed join is not
// retried (the client keeps no AM from it). boinccmd exits with status 0 in all these cases; it
// exits non-zero only when it cannot reach the client ("can't connect to
// 127.0.0.1") or the GUI RPC password is wrong ("Authorization failure:
// -155"). Joining again with the same URL (as stored, with the trailing
// slash), name (case-insensitively) and password does a new join RPC.
//
// `boinccmd --acct_mgr info` prints
//
//	Account manager info:
//	   Name: Harness AM
//	   URL: http://127.0.0.1:PORT/
//
// with empty values before a join and after `--acct_mgr detach` (which
// prints nothing, sends nothing, and leaves the projects attached but no
// longer "attached via Account Manager").
//
// `boinccmd --get_project_status` prints a block per project (see
// ParseProjectStatus): "1) -----------", then lines such as
// "   name: Cobble test project 18641", "   master URL: http://...",
// "   attached via Account Manager: yes", "   jobs succeeded: 42",
// "   jobs failed: 3".
//
// Making the client contact the AM again: `boinccmd --acct_mgr sync`
// (SyncAcctMgr) starts an RPC at once; otherwise the client does one
// <repeat_sec> seconds after each successful reply (2 works; 0 or missing
// means one day).
//
// Counters. The per-project <nrpc_failures>, <cpu_ec>, <cpu_time>,
// <gpu_ec>, <gpu_time>, <njobs_success> and <njobs_error> are in a request
// only if the AM's previous reply had <dynamic/> (the client keeps that in
// acct_mgr_login.xml, so it survives restarts). A join request never has
// them (a join again while projects are attached lists them without
// counters); the request after a join reply with <dynamic/> has them. Edit them with EditProjectCounters while
// the client is stopped; after Restart a sync reports them, e.g.
// <cpu_ec>12345.678000</cpu_ec>.
//
// Project. The client GETs the project URL (the master page) right after
// attaching. The page must contain <scheduler>URL</scheduler> or
// <link rel="boinc_scheduler" href="URL"> on a line shorter than 256
// bytes; otherwise the client logs "No scheduler URLs found in master
// file" and tries again later. It then POSTs a <scheduler_request> to that
// URL; Project answers with a <scheduler_reply> carrying <project_name>,
// <hostid> (only when the request's hostid is 0: a host id sent to a host
// that has one makes the client generate a new host CPID) and a
// <request_delay>. The client logs "Master file download succeeded",
// "Sending scheduler request: Project initialization." and "Scheduler
// request completed: got 0 new tasks".
//
// Staying on loopback. Besides the servers it is given, the client
// contacts https://www.google.com/ as a "reference site" (on a new client's
// first start and after HTTP failures) and boinc.berkeley.edu (project
// list, version check). Start turns these off with cc_config.xml options
// <dont_contact_ref_site> and <no_info_fetch> and the --no_info_fetch flag,
// points nvc_config.xml's URLs at 127.0.0.1:9, and removes proxy variables
// from the client's environment. The GUI RPC port listens on 127.0.0.1
// only (there is no remote_hosts.cfg). The client rejects URLs whose host
// has no "." (such as localhost), so every URL must use 127.0.0.1.
package boinctest
