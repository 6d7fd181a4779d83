package web_test

import (
	"encoding/xml"
	"strings"
	"testing"
)

// reply is an AM reply read back the way a test needs it.
type reply struct {
	Raw           string
	Name          string    `xml:"name"`
	ErrorNum      int       `xml:"error_num"`
	ErrorMsg      string    `xml:"error_msg"`
	UserName      string    `xml:"user_name"`
	Authenticator string    `xml:"authenticator"`
	RepeatSec     float64   `xml:"repeat_sec"`
	Dynamic       *struct{} `xml:"dynamic"`
	SigningKey    string    `xml:"signing_key"`
	Opaque        struct {
		Inner string `xml:",innerxml"`
	} `xml:"opaque"`
	Accounts []account `xml:"account"`
	Messages []string  `xml:"message"`
}

type account struct {
	URL                 string    `xml:"url"`
	URLSignature        string    `xml:"url_signature"`
	Authenticator       string    `xml:"authenticator"`
	ResourceShare       float64   `xml:"resource_share"`
	NoRsc               []string  `xml:"no_rsc"`
	DontRequestMoreWork *struct{} `xml:"dont_request_more_work"`
	DetachWhenDone      *struct{} `xml:"detach_when_done"`
}

func parseReply(t testing.TB, text string) *reply {
	t.Helper()
	r := &reply{Raw: text}
	if err := xml.Unmarshal([]byte(text), r); err != nil {
		t.Fatalf("reply is not XML: %v\n%s", err, text)
	}
	if !strings.Contains(text, "<acct_mgr_reply>") {
		t.Fatalf("reply has no <acct_mgr_reply>:\n%s", text)
	}
	return r
}

// opaqueRequest returns req with the reply's opaque and authenticator in
// place of the name and password, as the client sends them after a join.
func (r *reply) followUp(req []byte) []byte {
	s := string(req)
	start, end := strings.Index(s, "<name>"), strings.Index(s, "</password_hash>")
	s = s[:start] + "<authenticator>" + r.Authenticator + "</authenticator>" + s[end+len("</password_hash>"):]
	return []byte(strings.Replace(s, "</acct_mgr_request>",
		"<opaque>\n"+r.Opaque.Inner+"\n</opaque>\n</acct_mgr_request>", 1))
}

func (r *reply) account(url string) *account {
	for i := range r.Accounts {
		if r.Accounts[i].URL == url {
			return &r.Accounts[i]
		}
	}
	return nil
}
