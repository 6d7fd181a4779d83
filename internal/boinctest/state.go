package boinctest

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// StateFile is the path of the client's client_state.xml.
func (c *Client) StateFile() string {
	return filepath.Join(c.Dir, "client_state.xml")
}

// ReadState returns the contents of client_state.xml. The client rewrites
// the file after each change of state and on exit; read it after Stop for
// a settled view.
func (c *Client) ReadState(t testing.TB) string {
	t.Helper()
	b, err := os.ReadFile(c.StateFile())
	if err != nil {
		t.Fatalf("boinctest: %v", err)
	}
	return string(b)
}

// ProjectStateValue returns the text of the first <tag> element directly
// inside the <project> block of client_state.xml whose <master_url> is
// projectURL (compared case-insensitively), and whether it was found.
// Self-closing <tag/> counts as found, with value "".
func (c *Client) ProjectStateValue(t testing.TB, projectURL, tag string) (string, bool) {
	t.Helper()
	state := c.ReadState(t)
	start, end, ok := projectBlock(state, projectURL)
	if !ok {
		t.Fatalf("boinctest: no <project> with master_url %s in %s (projects: %v)",
			projectURL, c.StateFile(), stateProjectURLs(state))
	}
	block := state[start:end]
	if m := elementRE(tag).FindStringSubmatch(block); m != nil {
		return m[1], true
	}
	if strings.Contains(block, "<"+tag+"/>") {
		return "", true
	}
	return "", false
}

// EditProjectCounters rewrites client_state.xml while the client is
// stopped: inside the <project> block whose <master_url> is projectURL
// (compared case-insensitively) it sets each tag of counters (e.g. "cpu_ec",
// "cpu_time", "gpu_ec", "gpu_time", "njobs_success", "njobs_error") to its
// value, replacing an existing element or adding it before </project>.
// Values are XML-escaped. Call Restart afterwards; the client reads the
// values at startup and reports them in its next account manager request if
// the account manager's last reply had <dynamic/>.
//
// It fails the test if the client is running (the client would overwrite
// the file) or the project is not in the file.
func (c *Client) EditProjectCounters(t testing.TB, projectURL string, counters map[string]string) {
	t.Helper()
	if c.Running() {
		t.Fatal("boinctest: EditProjectCounters needs the client stopped (call Stop first)")
	}
	state := c.ReadState(t)
	start, end, ok := projectBlock(state, projectURL)
	if !ok {
		t.Fatalf("boinctest: no <project> with master_url %s in %s (projects: %v)",
			projectURL, c.StateFile(), stateProjectURLs(state))
	}
	block := state[start:end]
	tags := make([]string, 0, len(counters))
	for tag := range counters {
		if !tagNameRE.MatchString(tag) {
			t.Fatalf("boinctest: %q is not a plain XML tag name", tag)
		}
		tags = append(tags, tag)
	}
	slices.Sort(tags)
	for _, tag := range tags {
		block = setElement(block, tag, counters[tag])
	}
	state = state[:start] + block + state[end:]
	if err := os.WriteFile(c.StateFile(), []byte(state), 0o644); err != nil {
		t.Fatalf("boinctest: %v", err)
	}
}

var (
	tagNameRE   = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	masterURLRE = regexp.MustCompile(`<master_url>\s*([^<]*?)\s*</master_url>`)
)

// elementRE matches <tag>value</tag>, capturing the value.
func elementRE(tag string) *regexp.Regexp {
	return regexp.MustCompile(`(?s)<` + tag + `>(.*?)</` + tag + `>`)
}

// projectBlock finds the <project>...</project> block of state whose
// master_url equals url (case-insensitively) and returns its byte range.
func projectBlock(state, url string) (start, end int, ok bool) {
	const openTag, closeTag = "<project>", "</project>"
	pos := 0
	for {
		i := strings.Index(state[pos:], openTag)
		if i < 0 {
			return 0, 0, false
		}
		i += pos
		j := strings.Index(state[i:], closeTag)
		if j < 0 {
			return 0, 0, false
		}
		j += i + len(closeTag)
		if m := masterURLRE.FindStringSubmatch(state[i:j]); m != nil && strings.EqualFold(m[1], url) {
			return i, j, true
		}
		pos = j
	}
}

// stateProjectURLs lists the master URLs of the projects in state.
func stateProjectURLs(state string) []string {
	var urls []string
	for _, m := range masterURLRE.FindAllStringSubmatch(state, -1) {
		urls = append(urls, m[1])
	}
	return urls
}

// setElement sets <tag> in a <project> block to value.
func setElement(block, tag, value string) string {
	var esc bytes.Buffer
	_ = xml.EscapeText(&esc, []byte(value))
	elem := fmt.Sprintf("<%s>%s</%s>", tag, esc.String(), tag)
	re := elementRE(tag)
	if loc := re.FindStringIndex(block); loc != nil {
		return block[:loc[0]] + elem + block[loc[1]:]
	}
	if i := strings.Index(block, "<"+tag+"/>"); i >= 0 {
		return block[:i] + elem + block[i+len(tag)+3:]
	}
	i := strings.LastIndex(block, "</project>")
	return block[:i] + "    " + elem + "\n" + block[i:]
}
