package boinctest

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Project is a stand-in BOINC project on 127.0.0.1 for attach tests. It
// serves a master page (the page at the project URL, which the client
// fetches right after it attaches, to learn the scheduler URL) and a
// scheduler that answers every scheduler request with a reply carrying no
// work, so the client is content and never looks elsewhere. It records the
// requests it gets.
type Project struct {
	url          string
	schedURL     string
	name         string
	hostID       int
	requestDelay time.Duration

	mu   sync.Mutex
	reqs []ProjectRequest
}

// ProjectOptions configures NewProjectWith. The zero value gives the
// defaults of NewProject.
type ProjectOptions struct {
	// Listener is where the project serves. It must listen on a loopback
	// address. Default: a new listener on 127.0.0.1:0. NewProjectWith
	// closes it when the test ends.
	Listener net.Listener
	// Path is the URL path of the master page; it must start and end
	// with "/". Default "/proj/".
	Path string
	// Name is the project name sent in scheduler replies (the client shows
	// it in boinccmd --get_project_status and sends it to the account
	// manager as <project_name>). Default "Cobble test project PORT".
	// Projects attached to one client need distinct names.
	Name string
	// HostID is the host id the scheduler gives a client that has none yet
	// (it then appears as <hostid> in account manager requests).
	// Default 1001.
	HostID int
	// RequestDelay is sent as <request_delay> in scheduler replies, so the
	// client leaves the project alone for that long after each scheduler
	// RPC (an account manager <update/> still triggers one). Default 1 h.
	RequestDelay time.Duration
}

// ProjectRequest is one HTTP request the project received.
type ProjectRequest struct {
	Time   time.Time
	Method string
	Path   string
	// Kind is "master" for a GET of the master page, "scheduler" for a POST
	// to the scheduler, "other" otherwise.
	Kind string
	// Body is the request body (the <scheduler_request> XML for a
	// scheduler request).
	Body string
}

// NewProject starts a Project on 127.0.0.1 with the default options; see
// ProjectOptions. The server is closed when the test ends.
func NewProject(t testing.TB) *Project {
	t.Helper()
	return NewProjectWith(t, ProjectOptions{})
}

// NewProjectWith starts a Project with the given options. The server is
// closed when the test ends.
func NewProjectWith(t testing.TB, opts ProjectOptions) *Project {
	t.Helper()
	ln := opts.Listener
	if ln == nil {
		var err error
		ln, err = net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatalf("boinctest: %v", err)
		}
	}
	addr, ok := ln.Addr().(*net.TCPAddr)
	if !ok || !addr.IP.IsLoopback() {
		ln.Close()
		t.Fatalf("boinctest: project listener %v is not on loopback", ln.Addr())
	}
	path := opts.Path
	if path == "" {
		path = "/proj/"
	}
	if !strings.HasPrefix(path, "/") || !strings.HasSuffix(path, "/") {
		ln.Close()
		t.Fatalf("boinctest: project path %q must start and end with /", path)
	}
	base := "http://" + addr.String()
	p := &Project{
		url:          base + path,
		schedURL:     base + path + "cgi",
		name:         opts.Name,
		hostID:       opts.HostID,
		requestDelay: opts.RequestDelay,
	}
	if p.name == "" {
		p.name = "Cobble test project " + strconv.Itoa(addr.Port)
	}
	if p.hostID == 0 {
		p.hostID = 1001
	}
	if p.requestDelay == 0 {
		p.requestDelay = time.Hour
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.serve(w, r, path)
	}))
	srv.Listener.Close()
	srv.Listener = ln
	srv.Start()
	t.Cleanup(srv.Close)
	return p
}

// URL is the project's master URL, "http://127.0.0.1:PORT/PATH/", in the
// canonical form the client uses (with a "." in the host and a trailing
// slash). Signatures for an account manager reply must be made over exactly
// this text.
func (p *Project) URL() string { return p.url }

// SchedulerURL is the scheduler URL named in the master page.
func (p *Project) SchedulerURL() string { return p.schedURL }

// Name is the project name sent in scheduler replies.
func (p *Project) Name() string { return p.name }

// HostID is the host id the scheduler hands out.
func (p *Project) HostID() int { return p.hostID }

// Requests returns a copy of the requests received so far.
func (p *Project) Requests() []ProjectRequest {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]ProjectRequest(nil), p.reqs...)
}

// MasterFetches is how many times the master page was fetched.
func (p *Project) MasterFetches() int { return p.count("master") }

// SchedulerRequests is how many scheduler requests were received.
func (p *Project) SchedulerRequests() int { return p.count("scheduler") }

func (p *Project) count(kind string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for _, r := range p.reqs {
		if r.Kind == kind {
			n++
		}
	}
	return n
}

var schedHostIDRE = regexp.MustCompile(`<hostid>\s*(\d+)\s*</hostid>`)

func (p *Project) serve(w http.ResponseWriter, r *http.Request, path string) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 4<<20))
	rec := ProjectRequest{Time: time.Now(), Method: r.Method, Path: r.URL.Path, Kind: "other", Body: string(body)}
	switch {
	case r.URL.Path == path && (r.Method == http.MethodGet || r.Method == http.MethodHead):
		rec.Kind = "master"
	case r.URL.Path == path+"cgi" && r.Method == http.MethodPost:
		rec.Kind = "scheduler"
	}
	p.mu.Lock()
	p.reqs = append(p.reqs, rec)
	p.mu.Unlock()

	switch rec.Kind {
	case "master":
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, p.masterPage())
	case "scheduler":
		// A host id is only sent to a client that has none: the client
		// takes a host id in a reply to a request that already had one as
		// a sign its state file was copied, and makes itself a new host
		// CPID.
		newHost := true
		if m := schedHostIDRE.FindStringSubmatch(rec.Body); m != nil && m[1] != "0" {
			newHost = false
		}
		w.Header().Set("Content-Type", "text/xml")
		io.WriteString(w, p.schedulerReply(newHost))
	default:
		http.NotFound(w, r)
	}
}

// masterPage is the page at the project URL. The client reads it line by
// line (lines of at most 255 bytes) looking for <scheduler>URL</scheduler>
// or <link rel="boinc_scheduler" href="URL">; a page with neither makes
// the client log "No scheduler URLs found in master file" and retry later.
func (p *Project) masterPage() string {
	name := escape(p.name)
	return "<!DOCTYPE html>\n<html>\n<head>\n" +
		"<title>" + name + "</title>\n" +
		`<link rel="boinc_scheduler" href="` + p.schedURL + `">` + "\n" +
		"</head>\n<body>\n" +
		"<!-- <scheduler>" + p.schedURL + "</scheduler> -->\n" +
		"<h1>" + name + "</h1>\n" +
		"<p>A stand-in BOINC project for Cobble's tests.</p>\n" +
		"</body>\n</html>\n"
}

// schedulerReply is a scheduler reply with no work.
func (p *Project) schedulerReply(newHost bool) string {
	var b strings.Builder
	b.WriteString("<scheduler_reply>\n")
	fmt.Fprintf(&b, "<project_name>%s</project_name>\n", escape(p.name))
	if newHost {
		fmt.Fprintf(&b, "<hostid>%d</hostid>\n", p.hostID)
	}
	fmt.Fprintf(&b, "<request_delay>%d</request_delay>\n", int(p.requestDelay.Seconds()))
	b.WriteString("</scheduler_reply>\n")
	return b.String()
}

func escape(s string) string {
	var b bytes.Buffer
	_ = xml.EscapeText(&b, []byte(s))
	return b.String()
}
