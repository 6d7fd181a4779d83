package main

import (
	_ "embed"
	"fmt"
	"strconv"
	"strings"

	"github.com/cobble-am/cobble/accounting"
)

// fixture is a request the real BOINC client 7.20.5 sent, with counters.
//
//go:embed testdata/3-sync-with-ec.request.xml
var fixture string

// fixtureCPID is the fixture's host_cpid, replaced by each host's.
const fixtureCPID = "c4771a3760054c4e7da2f2662c8a484c"

// Fields of a request template, each marked in the template text by a NUL
// byte followed by one of these letters.
const (
	fAuth     = 'a' // the AM authenticator
	fCPID     = 'c' // host_cpid (and previous_host_cpid, and host_info's)
	fProjects = 'p' // the <project> blocks
	fToken    = 't' // the opaque host token
	fURL      = 'u'
	fName     = 'n'
	fHostID   = 'h'
	fCounter  = '0' // '0' + i: counter i of accounting.UsageFields
)

// part is a literal text preceded by a field (0 for none).
type part struct {
	field byte
	text  string
}

// compile splits a marked template into parts.
func compile(s string) []part {
	pieces := strings.Split(s, "\x00")
	parts := []part{{text: pieces[0]}}
	for _, p := range pieces[1:] {
		parts = append(parts, part{field: p[0], text: p[1:]})
	}
	return parts
}

// requestBuilder writes a host's RPC body: the fixture with the host's
// authenticator, host_cpid, opaque token and five projects.
type requestBuilder struct {
	request, project []part
	urls, names      [projectsPerHost]string
}

// newRequestBuilder turns the fixture into templates for the given
// catalog URLs.
func newRequestBuilder(urls [projectsPerHost]string) (*requestBuilder, error) {
	req, proj, err := markFixture(fixture)
	if err != nil {
		return nil, fmt.Errorf("request template: %w", err)
	}
	b := &requestBuilder{request: compile(req), project: compile(proj), urls: urls}
	for i := range b.names {
		b.names[i] = fmt.Sprintf("Cobble load project %d", i+1)
	}
	return b, nil
}

// markFixture returns the fixture as a marked request template and a
// marked <project> template. The authenticator replaces name and
// password_hash, as in every request after the join, and an <opaque> with
// the host token goes before <time_stats>, where the client writes it.
func markFixture(s string) (req, proj string, err error) {
	head, rest, ok := strings.Cut(s, "   <project>")
	proj, tail, ok2 := strings.Cut(rest, "</project>\n")
	if !ok || !ok2 {
		return "", "", fmt.Errorf("no <project> block")
	}
	req = head + "\x00" + string(fProjects) + tail
	start, end := strings.Index(req, "<name>"), strings.Index(req, "</password_hash>")
	if start < 0 || end < start || strings.Count(req, fixtureCPID) != 3 || !strings.Contains(req, "<time_stats>") {
		return "", "", fmt.Errorf("the fixture lacks name, password_hash, three host_cpids or time_stats")
	}
	req = req[:start] + "<authenticator>\x00" + string(fAuth) + "</authenticator>" + req[end+len("</password_hash>"):]
	req = strings.ReplaceAll(req, fixtureCPID, "\x00"+string(fCPID))
	req = strings.Replace(req, "<time_stats>",
		"<opaque>\n<host_token>\x00"+string(fToken)+"</host_token>\n</opaque>\n<time_stats>", 1)

	proj = "   <project>" + proj + "</project>\n"
	elements := map[string]byte{"url": fURL, "project_name": fName, "hostid": fHostID}
	for i, f := range accounting.UsageFields {
		elements[f.Name] = fCounter + byte(i)
	}
	for name, field := range elements {
		if proj, err = setElement(proj, name, "\x00"+string(field)); err != nil {
			return "", "", err
		}
	}
	return req, proj, nil
}

// setElement replaces the text of the first <name> element in s.
func setElement(s, name, text string) (string, error) {
	open, end := "<"+name+">", "</"+name+">"
	i := strings.Index(s, open)
	j := strings.Index(s, end)
	if i < 0 || j < i {
		return "", fmt.Errorf("the fixture's <project> has no <%s>", name)
	}
	return s[:i+len(open)] + text + s[j:], nil
}

// build appends the body of h's next RPC, carrying h.sent, to dst.
func (b *requestBuilder) build(dst []byte, h *host) []byte {
	for _, p := range b.request {
		switch p.field {
		case fAuth:
			dst = append(dst, h.auth...)
		case fCPID:
			dst = append(dst, h.cpid...)
		case fToken:
			dst = append(dst, h.token...)
		case fProjects:
			for i := range projectsPerHost {
				dst = b.buildProject(dst, h, i)
			}
		}
		dst = append(dst, p.text...)
	}
	return dst
}

// buildProject appends h's <project> block for catalog project i.
func (b *requestBuilder) buildProject(dst []byte, h *host, i int) []byte {
	values := h.sent[i].Values()
	for _, p := range b.project {
		switch p.field {
		case fURL:
			dst = append(dst, b.urls[i]...)
		case fName:
			dst = append(dst, b.names[i]...)
		case fHostID:
			dst = strconv.AppendInt(dst, h.projectHostIDs[i], 10)
		case 0: // the text before the first field
		default:
			f := p.field - fCounter
			dst = appendAmount(dst, accounting.UsageFields[f], values[f])
		}
		dst = append(dst, p.text...)
	}
	return dst
}
