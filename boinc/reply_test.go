package boinc

import (
	"encoding/xml"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// between returns the text of s after the first open and before the
// following close.
func between(t testing.TB, s, open, close string) string {
	t.Helper()
	_, rest, ok := strings.Cut(s, open)
	if !ok {
		t.Fatalf("%q not found", open)
	}
	inner, _, ok := strings.Cut(rest, close)
	if !ok {
		t.Fatalf("%q not found", close)
	}
	return inner
}

// fixtureKeyAndSignature returns the key and signature texts of the
// captured join reply, as PublicKeyText and SignURL write them.
func fixtureKeyAndSignature(t testing.TB) (key, sig string) {
	reply := string(readFixture(t, "1-join.reply.xml"))
	key = between(t, reply, "<signing_key>\n", "    </signing_key>")
	sig = between(t, reply, "<url_signature>\n", "        </url_signature>")
	return key, sig
}

const fixtureURL = "http://127.0.0.1:18641/proj/"

func TestReplyMatchesFixture(t *testing.T) {
	key, sig := fixtureKeyAndSignature(t)
	r := Reply{
		Name:       "Harness AM",
		UserName:   "harness-user",
		SigningKey: key,
		Dynamic:    true,
		Accounts: []Account{{
			URL:           fixtureURL,
			URLSignature:  sig,
			Authenticator: "0123456789abcdef0123456789abcdef",
		}},
	}
	want := string(readFixture(t, "1-join.reply.xml"))
	if got := string(r.AppendXML(nil)); got != want {
		t.Errorf("AppendXML differs from the accepted reply (-want +got):\n%s", cmp.Diff(want, got))
	}
}

// xmlReply is what encoding/xml reads back from a reply.
type xmlReply struct {
	XMLName       xml.Name     `xml:"acct_mgr_reply"`
	Name          string       `xml:"name"`
	ErrorNum      *int         `xml:"error_num"`
	ErrorMsg      *string      `xml:"error_msg"`
	UserName      string       `xml:"user_name"`
	Authenticator string       `xml:"authenticator"`
	RepeatSec     string       `xml:"repeat_sec"`
	Dynamic       *struct{}    `xml:"dynamic"`
	SigningKey    string       `xml:"signing_key"`
	Opaque        xmlInner     `xml:"opaque"`
	Messages      []string     `xml:"message"`
	Accounts      []xmlAccount `xml:"account"`
}

type xmlInner struct {
	Inner string `xml:",innerxml"`
}

type xmlAccount struct {
	URL                 string    `xml:"url"`
	URLSignature        string    `xml:"url_signature"`
	Authenticator       string    `xml:"authenticator"`
	ResourceShare       string    `xml:"resource_share"`
	NoRsc               []string  `xml:"no_rsc"`
	DontRequestMoreWork *struct{} `xml:"dont_request_more_work"`
	DetachWhenDone      *struct{} `xml:"detach_when_done"`
	Detach              *struct{} `xml:"detach"`
	Update              *struct{} `xml:"update"`
	UserTotalEC         string    `xml:"user_total_ec"`
	UserAvgEC           string    `xml:"user_avg_ec"`
	CPUEC               string    `xml:"cpu_ec"`
	CPUTime             string    `xml:"cpu_time"`
	GPUEC               string    `xml:"gpu_ec"`
	GPUTime             string    `xml:"gpu_time"`
	JobsSuccess         string    `xml:"njobs_success"`
	JobsError           string    `xml:"njobs_error"`
}

func TestReplyParsesWithEncodingXML(t *testing.T) {
	key, sig := fixtureKeyAndSignature(t)
	total, avg := 1234.5, 0.1
	msg := `a & b <c> "d" 'e' é ]]> ` + "\x01\xff"
	r := Reply{
		Name: "Cobble & Co", UserName: "<Ann>", Authenticator: "7_abc", RepeatSec: 3600,
		Dynamic: true, SigningKey: key, Opaque: "<host_token>tk</host_token>",
		Messages: []string{msg, ""},
		Accounts: []Account{{
			URL: "http://x.org/?a=1&b=2", URLSignature: sig, Authenticator: "k", ResourceShare: 50.25,
			NoRsc: []string{"NVIDIA", "ATI"}, DontRequestMoreWork: true, DetachWhenDone: true,
			Detach: true, Update: true, UserTotalEC: &total, UserAvgEC: &avg,
			AttachCounters: &Counters{CPUEC: 12345.678, CPUTime: 86400.5, GPUEC: 250.25, GPUTime: 3600,
				JobsSuccess: 42, JobsError: 3},
		}, {URL: "http://y.org/"}},
	}
	var got xmlReply
	if err := xml.Unmarshal(r.AppendXML(nil), &got); err != nil {
		t.Fatalf("encoding/xml cannot read the reply: %v\n%s", err, r.AppendXML(nil))
	}
	present := &struct{}{}
	want := xmlReply{
		XMLName: xml.Name{Local: "acct_mgr_reply"}, Name: "Cobble & Co", UserName: "<Ann>",
		Authenticator: "7_abc", RepeatSec: "3600", Dynamic: present, SigningKey: "\n" + key + "    ",
		Opaque:   xmlInner{"\n<host_token>tk</host_token>\n    "},
		Messages: []string{`a & b <c> "d" 'e' é ]]> ` + "\uFFFD\uFFFD", ""},
		Accounts: []xmlAccount{{
			URL: "http://x.org/?a=1&b=2", URLSignature: "\n" + sig + "        ", Authenticator: "k",
			ResourceShare: "50.25", NoRsc: []string{"NVIDIA", "ATI"}, DontRequestMoreWork: present,
			DetachWhenDone: present, Detach: present, Update: present, UserTotalEC: "1234.5",
			UserAvgEC: "0.1", CPUEC: "12345.678", CPUTime: "86400.5", GPUEC: "250.25",
			GPUTime: "3600", JobsSuccess: "42", JobsError: "3",
		}, {URL: "http://y.org/"}},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("reply read back (-want +got):\n%s", d)
	}
}

func TestErrorReply(t *testing.T) {
	r := Reply{Name: "Cobble", ErrorNum: CodeBadPassword, ErrorMsg: "Wrong <password> & more",
		UserName: "ignored", Dynamic: true, SigningKey: "k", Accounts: []Account{{URL: "u"}}}
	want := `<?xml version="1.0" encoding="UTF-8" ?>
<acct_mgr_reply>
    <name>Cobble</name>
    <error_num>-206</error_num>
    <error_msg>Wrong &lt;password&gt; &amp; more</error_msg>
</acct_mgr_reply>
`
	if got := string(r.AppendXML(nil)); got != want {
		t.Errorf("error reply:\n%s\nwant:\n%s", got, want)
	}
	msgOnly := Reply{ErrorMsg: "down"}
	want = `<?xml version="1.0" encoding="UTF-8" ?>
<acct_mgr_reply>
    <error_num>0</error_num>
    <error_msg>down</error_msg>
</acct_mgr_reply>
`
	if got := string(msgOnly.AppendXML(nil)); got != want {
		t.Errorf("error reply with message only:\n%s\nwant:\n%s", got, want)
	}
}

func TestReplyAppendsAndOmits(t *testing.T) {
	r := Reply{RepeatSec: math.NaN(), Accounts: []Account{{URL: "u", ResourceShare: math.Inf(1)}}}
	got := string(r.AppendXML([]byte("prefix")))
	want := "prefix" + xmlHeader + "<acct_mgr_reply>\n    <account>\n        <url>u</url>\n    </account>\n</acct_mgr_reply>\n"
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

func TestFloatFormatting(t *testing.T) {
	for _, f := range []float64{0.1, 1e21, 1e-7, 12345.678, 3600, -0.5, math.MaxFloat64, 5e-324} {
		b := appendFloatElem(nil, "", "x", f, true)
		text := between(t, string(b), "<x>", "</x>")
		if strings.ContainsAny(text, "eE") {
			t.Errorf("%v written with an exponent: %s", f, text)
		}
		if back, err := strconv.ParseFloat(text, 64); err != nil || back != f {
			t.Errorf("%v written as %s, which reads back as %v, %v", f, text, back, err)
		}
	}
	if got := string(appendFloatElem(nil, "", "x", math.Copysign(0, -1), true)); got != "<x>0</x>\n" {
		t.Errorf("-0 written as %q", got)
	}
}

func TestProjectConfigMatchesFixture(t *testing.T) {
	c := ProjectConfig{Name: "Harness AM", MasterURL: "http://127.0.0.1:18641/", MinPasswdLength: 6, UsesUsername: true}
	want := string(readFixture(t, "get_project_config.reply.xml"))
	if got := string(c.AppendXML(nil)); got != want {
		t.Errorf("AppendXML (-want +got):\n%s", cmp.Diff(want, got))
	}
	c = ProjectConfig{Name: "A&B", MinPasswdLength: 8}
	want = `<?xml version="1.0" encoding="UTF-8" ?>
<project_config>
    <name>A&amp;B</name>
    <account_manager/>
    <min_passwd_length>8</min_passwd_length>
    <client_account_creation_disabled/>
</project_config>
`
	if got := string(c.AppendXML(nil)); got != want {
		t.Errorf("AppendXML (-want +got):\n%s", cmp.Diff(want, got))
	}
	var v struct {
		Name string `xml:"name"`
	}
	if err := xml.Unmarshal(c.AppendXML(nil), &v); err != nil || v.Name != "A&B" {
		t.Errorf("encoding/xml reads name %q, %v", v.Name, err)
	}
}

func TestAppendEscaped(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain", "plain"},
		{`&<>"'`, "&amp;&lt;&gt;&quot;&apos;"},
		{"tab\tnl\ncr\r", "tab\tnl\ncr\r"},
		{"nul\x00bell\x07", "nul\uFFFDbell\uFFFD"},
		{"bad\xff\xfe utf8 \xc3", "bad\uFFFD\uFFFD utf8 \uFFFD"},
		{"é€😀 \uFFFE", "é€😀 \uFFFD"},
	}
	for _, tt := range tests {
		if got := string(appendEscaped(nil, tt.in)); got != tt.want {
			t.Errorf("appendEscaped(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestOpaqueFitsClientBuffer checks MaxOpaqueLen against the layout: the
// client reads everything after <opaque> up to and including </opaque>
// into a 256-byte buffer, at most 255 characters plus NUL.
func TestOpaqueFitsClientBuffer(t *testing.T) {
	r := Reply{Opaque: strings.Repeat("a", MaxOpaqueLen)}
	out := string(r.AppendXML(nil))
	_, rest, _ := strings.Cut(out, "<opaque>")
	inner, _, _ := strings.Cut(rest, "</opaque>")
	if n := len(inner) + len("</opaque>"); n != 255 {
		t.Errorf("the client reads %d characters for a %d-byte opaque, want 255", n, MaxOpaqueLen)
	}
}
