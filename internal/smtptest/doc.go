// Package smtptest runs a real SMTP server on 127.0.0.1 for Cobble's tests.
//
// Start listens on a free loopback port and answers SMTP on it, so that
// Cobble's mail sending can be tested end to end over the network:
//
//	srv := smtptest.Start(t)
//	// ... configure Cobble to send mail to srv.URL() ("smtp://127.0.0.1:PORT") ...
//	msgs := srv.WaitMessages(t, 1, 5*time.Second)
//	links := msgs[0].Links() // e.g. the address-confirmation link
//
// The server offers no TLS. It advertises AUTH PLAIN over the plain
// connection; until RequireAuth is called any credentials are accepted and
// authentication is optional.
//
// SetMode makes the server misbehave the way a real mail relay can, so that
// tests can check how Cobble copes: Hang never answers, TempFail and
// PermFail refuse the message with a 4xx or a 5xx reply, and Drop closes
// the connection in the middle of the transaction. Stop and Restart take
// the server down and bring it back up on the same port; the messages
// received so far are kept.
//
// Every message the server accepts is kept in memory, parsed into a
// Message: its envelope, raw bytes, header and decoded text and HTML
// bodies.
package smtptest
