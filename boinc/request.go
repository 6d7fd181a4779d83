package boinc

import (
	"bytes"
	"errors"
	"fmt"
)

// ErrMalformed is wrapped by the error [ParseRequest] returns for a body
// that is empty or holds no <acct_mgr_request> element.
var ErrMalformed = errors.New("boinc: malformed account manager request")

// Request is an account manager request as a BOINC client sends it to
// Cobble's RPC endpoint. Elements missing from the request leave their
// fields at the zero value.
type Request struct {
	// Authenticator is the account key Cobble gave the client; when it is
	// empty the client identifies itself by Name and PasswordHash instead.
	Authenticator string
	// Name is the login name the volunteer typed when joining.
	Name string
	// PasswordHash is md5_hex(password + lowercase(Name)); see PasswordHash.
	PasswordHash string
	// HostCPID is the client's identifier for the host. It changes when
	// the client's data are reset; PreviousHostCPID is then the former one.
	HostCPID         string
	PreviousHostCPID string
	DomainName       string // the host's network name
	ClientVersion    string // e.g. "7.20.5"
	RunMode          string // "always", "auto" or "never"
	PlatformName     string // e.g. "x86_64-pc-linux-gnu"
	// AltPlatforms lists the <name> of each <alt_platform>.
	AltPlatforms []string
	// Opaque is the raw inner bytes of <opaque>, trimmed of surrounding
	// white space and not entity-decoded. Cobble wrote it in an earlier
	// reply, but the client may send any bytes, valid UTF-8 or not.
	Opaque   string
	Projects []Project
	Host     HostInfo
}

// Project is one <project> the client is attached to.
type Project struct {
	// URL is the project's master URL as the client stores it. It may be
	// empty in a damaged request.
	URL                 string
	ProjectName         string // empty until the client has contacted the project
	HostID              int64  // the project's id for this host; 0 if none yet
	SuspendedViaGUI     bool
	AttachedViaAcctMgr  bool // attached because an account manager said so
	DontRequestMoreWork bool
	DetachWhenDone      bool
	Ended               bool // the project has announced its end
	ResourceShare       float64
	AccountKey          string // sent only for projects attached via the AM
	NRPCFailures        int    // consecutive failed scheduler requests
	// SchedReqNoWork lists resource names ("CPU", "NVIDIA", ...) for which
	// the project's scheduler last returned no work.
	SchedReqNoWork []string
	// Counters is nil unless all six counter elements are present and
	// parse as numbers. Clients send them only after a reply with
	// <dynamic/>.
	Counters *Counters
}

// Counters are the lifetime work counters a client keeps per project:
// estimated credit (Cobblestones) and instance-seconds of CPU and GPU
// work, and the numbers of jobs that succeeded and failed.
type Counters struct {
	CPUEC, CPUTime, GPUEC, GPUTime float64
	JobsSuccess, JobsError         int64
}

// HostInfo is the client's <host_info>.
type HostInfo struct {
	Timezone   int // offset from UTC in seconds
	DomainName string
	IPAddr     string
	HostCPID   string
	NCPUs      int
	PVendor    string
	PModel     string
	PFPOps     float64 // floating point operations per second per CPU
	PIOps      float64 // integer operations per second per CPU
	MNBytes    float64 // memory size in bytes
	OSName     string
	OSVersion  string
	Coprocs    []Coproc
}

// Coproc is one kind of GPU a host reports. Type is the client's resource
// name: "NVIDIA" for <coproc_cuda>, "ATI" for <coproc_ati>, "intel_gpu"
// for <coproc_intel_gpu>, "apple_gpu" for <coproc_apple_gpu> (clients 8.0
// and later), and the <type> text of a generic <coproc>, which may be empty
// in a damaged request.
type Coproc struct {
	Type      string
	Count     int
	PeakFLOPS float64 // per device
}

// maxDepth bounds the element nesting ParseRequest tracks; deeper start
// tags are ignored. It keeps the cost of each end tag bounded.
const maxDepth = 256

// ParseRequest parses the body of an account manager RPC.
//
// It tolerates what real clients send: unescaped '&' and unknown entities
// in text, a global preferences block that is not well-formed XML (the
// <working_global_preferences> and <global_preferences> blocks are skipped
// by searching for their end tags), unknown elements anywhere, elements in
// any order, missing elements, and stray or missing end tags. An end tag
// closes the innermost open element of the same name and every element
// opened after it; an end tag matching no open element is ignored; the end
// of input closes everything. Each field is taken only at its exact path,
// so an element of the same name nested elsewhere (for example a
// <peak_flops> inside <coproc_opencl>) does not overwrite it. When an
// element occurs twice, the last one wins.
//
// Strings are entity-decoded as [AppendUnescaped] does and trimmed of
// surrounding white space; invalid UTF-8 is replaced by U+FFFD and NUL
// bytes are dropped, so every string but Opaque is valid UTF-8. Numbers
// that do not parse leave the zero value; NaN, ±Inf and out-of-range
// values are returned as parsed, for the caller to clamp. Integers may
// also be written as integral decimals ("42.000000"). A boolean is true
// for <x/> or a non-zero integer, false otherwise.
//
// The only errors, both wrapping [ErrMalformed], are an empty (or all
// white space) body and a body with no <acct_mgr_request> start tag.
// ParseRequest never panics.
func ParseRequest(body []byte) (*Request, error) {
	if len(bytes.TrimSpace(body)) == 0 {
		return nil, fmt.Errorf("%w: empty body", ErrMalformed)
	}
	p := &reqParser{req: new(Request)}
	p.stack = p.stackBuf[:0]
	p.strs.buf, p.strs.pend = p.strBuf[:0], p.pendBuf[:0]
	p.sc.Reset(body)
	if !p.run() {
		return nil, fmt.Errorf("%w: no <acct_mgr_request> element", ErrMalformed)
	}
	return p.req, nil
}

// frame is an open element.
type frame struct {
	name []byte
	c    ctx
}

// reqParser holds the state of one ParseRequest call.
type reqParser struct {
	sc       xmlScanner
	req      *Request
	stack    []frame
	stackBuf [16]frame
	rooted   bool // <acct_mgr_request> seen
	done     bool // </acct_mgr_request> seen

	// tokText of the open leaf element: txt is either a sub-slice of the
	// input (one chunk that needs no decoding) or txtBuf's contents.
	txt     []byte
	txtBuf  []byte
	nChunks int
	clean   []byte // scratch for cleanText

	proj     Project
	counters Counters
	cmask    uint8 // counters present and valid, one bit per field
	projMark batchMark
	co       Coproc
	generic  bool // co is a generic <coproc>
	coMark   batchMark
	strs     strBatch
	strBuf   [512]byte
	pendBuf  [24]pendingString
}

// run scans the whole body and reports whether the root element was seen.
func (p *reqParser) run() bool {
	for !p.done {
		if !p.sc.advance() {
			p.popTo(0)
			break
		}
		tok := &p.sc.tok
		switch tok.Kind {
		case tokStart:
			p.start(tok)
		case tokEnd:
			p.end(tok.Name)
		case tokText:
			if len(p.stack) > 0 && p.stack[len(p.stack)-1].c >= firstLeaf {
				p.addText(tok)
			}
		}
	}
	p.strs.flush(batchMark{})
	return p.rooted
}

// start handles a start tag.
func (p *reqParser) start(tok *xmlToken) {
	if !p.rooted {
		if string(tok.Name) != "acct_mgr_request" {
			return
		}
		p.rooted = true
	}
	if p.skipPrefs(tok) {
		return
	}
	c := cRoot
	if len(p.stack) > 0 {
		c = child(p.stack[len(p.stack)-1].c, tok.Name)
	}
	if c == fOpaque {
		p.opaque(tok.SelfClosing)
		return
	}
	if len(p.stack) >= maxDepth {
		return
	}
	p.stack = append(p.stack, frame{name: tok.Name, c: c})
	p.open(c, tok.Name)
	if tok.SelfClosing {
		p.stack = p.stack[:len(p.stack)-1]
		p.close(c, true)
	}
}

// skipPrefs skips a preferences block, which the client copies verbatim
// and which may therefore be broken, by searching for its end tag. If
// there is none, only the start tag is skipped. It reports whether tok
// started such a block.
func (p *reqParser) skipPrefs(tok *xmlToken) bool {
	var endTag string
	switch string(tok.Name) {
	case "working_global_preferences":
		endTag = "</working_global_preferences>"
	case "global_preferences":
		endTag = "</global_preferences>"
	default:
		return false
	}
	if !tok.SelfClosing {
		p.sc.RawUntil(endTag)
	}
	return true
}

// opaque takes the raw contents of <opaque> up to the literal </opaque>.
// If there is none, only the start tag is skipped.
func (p *reqParser) opaque(selfClosing bool) {
	if selfClosing {
		p.strs.add(&p.req.Opaque, nil)
		return
	}
	if raw, ok := p.sc.RawUntil("</opaque>"); ok {
		p.strs.add(&p.req.Opaque, bytes.TrimSpace(raw))
	}
}

// end handles an end tag: it closes the innermost open element named name
// and all elements opened after it, or does nothing if none is open.
func (p *reqParser) end(name []byte) {
	for i := len(p.stack) - 1; i >= 0; i-- {
		if bytes.Equal(p.stack[i].name, name) {
			p.popTo(i)
			return
		}
	}
}

// popTo closes the open elements from the innermost down to depth i.
func (p *reqParser) popTo(i int) {
	for j := len(p.stack) - 1; j >= i; j-- {
		c := p.stack[j].c
		p.stack = p.stack[:j]
		p.close(c, false)
	}
}
