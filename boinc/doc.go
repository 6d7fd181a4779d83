// Package boinc implements the wire formats Cobble speaks with BOINC
// clients: the account manager request sent by the client, the reply and
// project configuration Cobble sends back, and the RSA signing key and URL
// signatures that authorize project attachments; and the credit exports
// projects publish (tables.xml and host.gz), which [HostScanner] reads as a
// stream in bounded memory and [StatsSource] downloads with conditional GET.
//
// BOINC clients do not always produce well-formed XML: several fields are
// written without escaping, the volunteer's global preferences file is
// copied verbatim, and newer clients add elements older ones did not
// know. The package therefore parses with its own lenient tokenizer,
// xmlScanner, instead of encoding/xml. [ParseRequest] accepts anything that
// contains an <acct_mgr_request> element and never panics.
//
// BOINC hashes passwords and signs project URLs with MD5, so PasswordHash,
// SignURL and VerifyURL panic when Go runs with GODEBUG=fips140=only, which
// forbids MD5 (and GenerateSigningKey fails, as that mode also refuses
// 1024-bit keys). GODEBUG=fips140=on works.
//
// The package imports only the Go standard library.
package boinc
