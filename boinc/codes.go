package boinc

// Error numbers an account manager puts in <error_num>. The client shows the
// reply's <error_msg>, and for some numbers a text of its own.
const (
	// CodeXMLParse: the request could not be read.
	CodeXMLParse = -112
	// CodeNotFound: no account with the name given.
	CodeNotFound = -136
	// CodeProjectDown: the service is down for now; try again later.
	CodeProjectDown = -183
	// CodeBadPassword: the password or authenticator is wrong
	// (boinccmd prints "bad password").
	CodeBadPassword = -206
	// CodeGeneric: any other failure; the message says what happened.
	CodeGeneric = -1
)
