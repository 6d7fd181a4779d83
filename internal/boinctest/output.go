package boinctest

import (
	"bufio"
	"regexp"
	"strings"
)

// AMOutput is what boinccmd printed for an account manager RPC
// (--join_acct_mgr, --acct_mgr attach or --acct_mgr sync), taken apart.
// See the package documentation for the exact texts.
type AMOutput struct {
	// Done is true when boinccmd stopped polling by itself. It is false
	// when boinccmd was stopped while still printing "poll status:
	// operation in progress" (an HTTP failure, or an account manager slower
	// than the timeout) or when the client refused the request.
	Done bool
	// Status is the error boinccmd reported last, the text after
	// "poll status: ", e.g. "bad password", "invalid URL" or "retry" (an
	// account manager RPC was already in flight). It is "" when the RPC
	// completed with error number 0: a success, but also a reply the client
	// could not parse or one with only <error_msg> (check Messages and the
	// client log).
	Status string
	// Messages are the lines boinccmd printed after "Messages from
	// account manager:" (the reply's <error_msg> when it had no
	// <error_num>; <message> tags are not shown here, only in the client
	// log).
	Messages []string
	// GUIError is the client's refusal of the request, the text after
	// "GUI RPC error: ", e.g. "bad arg" (sync without an account manager)
	// or "attached to a different AM - detach first".
	GUIError string
}

// OK reports whether the output looks like a completed RPC without an
// error. The client log tells more: "Account manager contact succeeded".
func (o AMOutput) OK() bool {
	return o.Done && o.Status == "" && len(o.Messages) == 0 && o.GUIError == ""
}

const inProgress = "operation in progress"

// ParseAMOutput takes apart boinccmd's output for an account manager RPC.
func ParseAMOutput(out string) AMOutput {
	var o AMOutput
	lastInProgress := false
	inMessages := false
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		line := sc.Text()
		switch {
		case inMessages:
			o.Messages = append(o.Messages, line)
		case line == "polling for reply":
			lastInProgress = false
		case strings.HasPrefix(line, "poll status: "):
			s := strings.TrimPrefix(line, "poll status: ")
			lastInProgress = s == inProgress
			if !lastInProgress {
				o.Status = s
			}
		case line == "Messages from account manager:":
			inMessages = true
		case strings.Contains(line, "GUI RPC error: "):
			_, o.GUIError, _ = strings.Cut(line, "GUI RPC error: ")
		}
	}
	o.Done = o.GUIError == "" && strings.Contains(out, "polling for reply") && !lastInProgress
	return o
}

// ProjectStatus is one project from `boinccmd --get_project_status`.
type ProjectStatus struct {
	// Name is the project name ("" until the first scheduler reply).
	Name string
	// MasterURL is the project URL.
	MasterURL string
	// AttachedViaAcctMgr is the "attached via Account Manager: yes" line.
	AttachedViaAcctMgr bool
	// Fields holds every "key: value" line of the project, keyed as
	// boinccmd prints the key (e.g. "jobs failed", "user_name").
	Fields map[string]string
}

var projectHeadRE = regexp.MustCompile(`^\d+\) -+$`)

// ParseProjectStatus takes apart the output of
// `boinccmd --get_project_status`.
func ParseProjectStatus(out string) []ProjectStatus {
	var ps []ProjectStatus
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		line := sc.Text()
		if projectHeadRE.MatchString(line) {
			ps = append(ps, ProjectStatus{Fields: map[string]string{}})
			continue
		}
		if len(ps) == 0 {
			continue
		}
		k, v, ok := strings.Cut(strings.TrimSpace(line), ": ")
		if !ok {
			k, ok = strings.CutSuffix(strings.TrimSpace(line), ":")
			if !ok {
				continue
			}
		}
		p := &ps[len(ps)-1]
		if _, seen := p.Fields[k]; !seen {
			p.Fields[k] = v
		}
	}
	for i := range ps {
		p := &ps[i]
		p.Name = p.Fields["name"]
		p.MasterURL = p.Fields["master URL"]
		p.AttachedViaAcctMgr = p.Fields["attached via Account Manager"] == "yes"
	}
	return ps
}
