package boinc

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func readFixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// fixtureHost is the <host_info> of the captured requests.
var fixtureHost = HostInfo{
	DomainName: "vm",
	IPAddr:     "127.0.0.1",
	HostCPID:   "c4771a3760054c4e7da2f2662c8a484c",
	NCPUs:      2,
	PVendor:    "AuthenticAMD",
	PModel:     "AMD EPYC [Family 25 Model 17 Stepping 1]",
	PFPOps:     1e9,
	PIOps:      1e9,
	MNBytes:    25276510208,
	OSName:     "Linux Debian",
	OSVersion:  "Debian GNU/Linux 12 (bookworm) [6.18.44-fc-v657|libc 2.36]",
}

func fixtureRequest(projects ...Project) *Request {
	r := &Request{
		Name:          "harness-user",
		PasswordHash:  "1b0c5653828265b442b07e297a78bea8",
		HostCPID:      "c4771a3760054c4e7da2f2662c8a484c",
		DomainName:    "vm",
		ClientVersion: "7.20.5",
		RunMode:       "auto",
		PlatformName:  "x86_64-pc-linux-gnu",
		Projects:      projects,
		Host:          fixtureHost,
	}
	if len(projects) > 0 {
		r.PreviousHostCPID = "c4771a3760054c4e7da2f2662c8a484c"
	}
	return r
}

func TestParseRequestFixtures(t *testing.T) {
	proj := Project{
		URL:                "http://127.0.0.1:18641/proj/",
		AttachedViaAcctMgr: true,
		ResourceShare:      100,
		AccountKey:         "0123456789abcdef0123456789abcdef",
	}
	synced := proj
	synced.Counters = &Counters{}
	withEC := proj
	withEC.ProjectName = "Fake proj"
	withEC.HostID = 1004
	withEC.Counters = &Counters{CPUEC: 12345.678, CPUTime: 86400.5, GPUEC: 250.25,
		GPUTime: 3600, JobsSuccess: 42, JobsError: 3}
	tests := []struct {
		file string
		want *Request
	}{
		{"1-join.request.xml", fixtureRequest()},
		{"2-sync-after-attach.request.xml", fixtureRequest(synced)},
		{"3-sync-with-ec.request.xml", fixtureRequest(withEC)},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			got, err := ParseRequest(readFixture(t, tt.file))
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, got, cmpopts.EquateEmpty()); d != "" {
				t.Errorf("ParseRequest (-want +got):\n%s", d)
			}
		})
	}
}

// wrap puts body inside a request element.
func wrap(body string) string {
	return "<?xml version=\"1.0\" encoding=\"UTF-8\" ?>\n<acct_mgr_request>\n" + body + "\n</acct_mgr_request>\n"
}

func TestParseRequestTolerance(t *testing.T) {
	tests := []struct {
		name string
		body string
		want Request
	}{
		{"bare ampersands", wrap(`<domain_name>R&D lab</domain_name>
<project><url>http://example.com/?a=1&b=2&amp;c=3</url><project_name>Foo & Bar &unknown; &lt;x&gt;</project_name></project>`),
			Request{DomainName: "R&D lab", Projects: []Project{{URL: "http://example.com/?a=1&b=2&c=3", ProjectName: "Foo & Bar &unknown; <x>"}}}},
		{"broken working prefs", wrap(`<name>a</name>
<working_global_preferences><global_preferences><venue name="x"><oops></working_global_preferences>
<run_mode>never</run_mode>`), Request{Name: "a", RunMode: "never"}},
		{"broken verbatim prefs file", wrap(`<working_global_preferences>
<global_preferences><mod_time>1</mod_time></global_preferences>
</working_global_preferences>
<global_preferences><!-- unterminated <venue> & <b <<< </global_preferences>
<host_info><p_ncpus>8</p_ncpus></host_info>`), Request{Host: HostInfo{NCPUs: 8}}},
		{"prefs block without end tag", wrap(`<working_global_preferences>
<global_preferences><mod_time>1</mod_time></global_preferences>
<run_mode>always</run_mode>`), Request{RunMode: "always"}},
		{"unknown tags and containers", wrap(`<new_thing a="1">x</new_thing>
<gui_urls><gui_url><name>evil</name><url>http://x/</url></gui_url></gui_urls>
<project><extra><url>http://wrong/</url><hostid>9</hostid></extra><url>http://right.org/</url><hostid>5</hostid></project>
<results><result><name>r1</name></result></results><name>n</name>`),
			Request{Name: "n", Projects: []Project{{URL: "http://right.org/", HostID: 5}}}},
		{"missing elements", wrap(`<project></project><host_info/>`), Request{Projects: []Project{{}}}},
		{"any order", wrap(`<host_info><coprocs/><os_name>Mac</os_name></host_info><project><account_key>k</account_key><url>u</url></project><authenticator>auth</authenticator>`),
			Request{Authenticator: "auth", Host: HostInfo{OSName: "Mac"}, Projects: []Project{{URL: "u", AccountKey: "k"}}}},
		{"stray and missing end tags", wrap(`</project></nothing><name>n</name></name></host_info>
<project><url>http://a.org/</url><hostid>3</project>
<project><url>http://b.org/</url>`),
			Request{Name: "n", Projects: []Project{{URL: "http://a.org/", HostID: 3}, {URL: "http://b.org/"}}}},
		{"unclosed root", "<acct_mgr_request><name>n</name><project><url>u</url>",
			Request{Name: "n", Projects: []Project{{URL: "u"}}}},
		{"coproc_cuda with nested opencl", wrap(`<host_info><coprocs><coproc_cuda><count>2</count>
<coproc_opencl><peak_flops>1.0</peak_flops><count>7</count><type>x</type></coproc_opencl>
<peak_flops>5000000000000.000000</peak_flops></coproc_cuda></coprocs></host_info>`),
			Request{Host: HostInfo{Coprocs: []Coproc{{Type: "NVIDIA", Count: 2, PeakFLOPS: 5e12}}}}},
		{"generic and specific coprocs", wrap(`<host_info><coprocs>
<coproc><type>apple_gpu</type><count>1</count><peak_flops>2.5e12</peak_flops></coproc>
<coproc_ati><count>1</count><peak_flops>1</peak_flops></coproc_ati>
<coproc_intel_gpu><type>ignored</type><count>1</count></coproc_intel_gpu>
<coproc_apple_gpu><count>1</count><peak_flops>3</peak_flops></coproc_apple_gpu>
</coprocs><coproc_cuda><count>9</count></coproc_cuda></host_info>`),
			Request{Host: HostInfo{Coprocs: []Coproc{{Type: "apple_gpu", Count: 1, PeakFLOPS: 2.5e12},
				{Type: "ATI", Count: 1, PeakFLOPS: 1}, {Type: "intel_gpu", Count: 1}, {Type: "apple_gpu", Count: 1, PeakFLOPS: 3}}}}},
		{"non-numeric counters", wrap(`<project><url>u</url><cpu_ec>abc</cpu_ec><cpu_time>1</cpu_time><gpu_ec>1</gpu_ec>
<gpu_time>1</gpu_time><njobs_success>1</njobs_success><njobs_error>1</njobs_error></project>`),
			Request{Projects: []Project{{URL: "u"}}}},
		{"missing counter", wrap(`<project><cpu_ec>1</cpu_ec><cpu_time>1</cpu_time><gpu_ec>1</gpu_ec>
<gpu_time>1</gpu_time><njobs_success>1</njobs_success></project>`),
			Request{Projects: []Project{{}}}},
		{"bools and lists", wrap(`<alt_platform><name>i686-pc-linux-gnu</name></alt_platform><alt_platform>
<name>x86_64-pc-linux-musl</name></alt_platform>
<project><ended/><suspended_via_gui>1</suspended_via_gui><detach_when_done>0</detach_when_done>
<dont_request_more_work>true</dont_request_more_work><attached_via_acct_mgr></attached_via_acct_mgr>
<sched_req_no_work>CPU</sched_req_no_work><sched_req_no_work>NVIDIA</sched_req_no_work><nrpc_failures>4</nrpc_failures></project>`),
			Request{AltPlatforms: []string{"i686-pc-linux-gnu", "x86_64-pc-linux-musl"}, Projects: []Project{{
				Ended: true, SuspendedViaGUI: true, SchedReqNoWork: []string{"CPU", "NVIDIA"}, NRPCFailures: 4}}}},
		{"numbers", wrap(`<host_info><timezone>-18000</timezone><p_ncpus>16.000000</p_ncpus><p_fpops>  4.5e9 </p_fpops>
<p_iops>bogus</p_iops><m_nbytes>1e999</m_nbytes></host_info><project><hostid>12345678901</hostid></project>`),
			Request{Host: HostInfo{Timezone: -18000, NCPUs: 16, PFPOps: 4.5e9, MNBytes: math.Inf(1)},
				Projects: []Project{{HostID: 12345678901}}}},
		{"opaque raw", wrap("<opaque>\n<host_token>a&b<c</host_token>\n   </opaque><name>n</name>"),
			Request{Opaque: "<host_token>a&b<c</host_token>", Name: "n"}},
		{"empty opaque", wrap("<opaque/><name>n</name>"), Request{Name: "n"}},
		{"resource names", wrap(`<project><sched_req_no_work>ATI</sched_req_no_work><sched_req_no_work>intel_gpu</sched_req_no_work>
<sched_req_no_work>apple_gpu</sched_req_no_work><sched_req_no_work> new_gpu </sched_req_no_work></project>`),
			Request{Projects: []Project{{SchedReqNoWork: []string{"ATI", "intel_gpu", "apple_gpu", "new_gpu"}}}}},
		{"opaque without end tag", wrap("<name>n</name><opaque><x>"), Request{Name: "n"}},
		{"entities, CDATA, comments", wrap(`<name>  caf&#195;&#169; <![CDATA[a&amp;b]]> <!-- c --> x  </name>
<domain_name>&#233;t&#xE9;&#x1F600;</domain_name><host_info><p_model>Intel(R) &#194;&#174;</p_model></host_info>`),
			Request{Name: "café a&amp;b  x", DomainName: "été\U0001F600", Host: HostInfo{PModel: "Intel(R) ®"}}},
		{"invalid UTF-8 and NUL", wrap("<name>a\xffb\x00c</name>"), Request{Name: "a\uFFFDbc"}},
		{"junk before root", "garbage <html><acct_mgr_request><name>n</name></acct_mgr_request><name>after</name>",
			Request{Name: "n"}},
		{"last element wins", wrap(`<name>a</name><name>b</name><project><url>1</url><url>2</url></project>`),
			Request{Name: "b", Projects: []Project{{URL: "2"}}}},
		{"less-than in text", wrap(`<name>a<b</name><domain_name>x < y</domain_name>`),
			Request{Name: "a<b", DomainName: "x < y"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseRequest([]byte(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(&tt.want, got, cmpopts.EquateEmpty(), cmpopts.EquateNaNs()); d != "" {
				t.Errorf("ParseRequest (-want +got):\n%s", d)
			}
		})
	}
}

func TestParseRequestNaN(t *testing.T) {
	got, err := ParseRequest([]byte(wrap(`<project><cpu_ec>nan</cpu_ec><cpu_time>NaN</cpu_time><gpu_ec>-Inf</gpu_ec>
<gpu_time>inf</gpu_time><njobs_success>1</njobs_success><njobs_error>0</njobs_error><resource_share>NaN</resource_share></project>`)))
	if err != nil {
		t.Fatal(err)
	}
	c := got.Projects[0].Counters
	if c == nil || !math.IsNaN(c.CPUEC) || !math.IsNaN(c.CPUTime) || !math.IsInf(c.GPUEC, -1) || !math.IsInf(c.GPUTime, 1) {
		t.Errorf("counters = %+v, want NaN, NaN, -Inf, +Inf", c)
	}
	if !math.IsNaN(got.Projects[0].ResourceShare) {
		t.Errorf("resource share = %v, want NaN", got.Projects[0].ResourceShare)
	}
}

func TestParseRequestErrors(t *testing.T) {
	for _, body := range []string{"", " \n\t ", "<acct_mgr_reply><name>x</name></acct_mgr_reply>",
		"just text", "<!-- <acct_mgr_request> -->", "<acct_mgr_requests></acct_mgr_requests>"} {
		r, err := ParseRequest([]byte(body))
		if !errors.Is(err, ErrMalformed) || r != nil {
			t.Errorf("ParseRequest(%q) = %v, %v; want nil, ErrMalformed", body, r, err)
		}
	}
	_, err := ParseRequest(nil)
	if err == nil || !strings.Contains(err.Error(), "empty") {
		t.Errorf("ParseRequest(nil) error = %v, want one saying empty", err)
	}
	_, err = ParseRequest([]byte("<x/>"))
	if err == nil || !strings.Contains(err.Error(), "<acct_mgr_request>") {
		t.Errorf("ParseRequest(<x/>) error = %v, want one naming <acct_mgr_request>", err)
	}
	if r, err := ParseRequest([]byte("<acct_mgr_request/>")); err != nil || r == nil {
		t.Errorf("ParseRequest(<acct_mgr_request/>) = %v, %v; want an empty request", r, err)
	}
}

func TestParseRequestDeepNesting(t *testing.T) {
	body := wrap(strings.Repeat("<a>", 100000) + strings.Repeat("</b>", 100000) + "<name>n</name>")
	got, err := ParseRequest([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	if got.Name != "" {
		t.Errorf("Name = %q; a name nested in unclosed elements must not be taken", got.Name)
	}
}

func BenchmarkParseRequest(b *testing.B) {
	body := readFixture(b, "3-sync-with-ec.request.xml")
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseRequest(body); err != nil {
			b.Fatal(err)
		}
	}
}
