//go:build linux

package deploy

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cobble-am/cobble/internal/testport"
)

// site is nginx/cobble.conf as a test runs it: in dir, on loopback ports,
// with a certificate for 127.0.0.1 that roots trusts.
type site struct {
	dir         string
	https, http int
	roots       *x509.CertPool
}

// newSite writes nginx.conf and the site, rewritten to listen on free
// loopback ports and to pass requests to upstream (host:port).
func newSite(t *testing.T, upstream string, https, plain int) *site {
	t.Helper()
	s := &site{dir: t.TempDir(), https: https, http: plain}
	cert, key := s.writeCert(t)
	conf := readFile(t, "nginx/cobble.conf")
	ipv6 := regexp.MustCompile(`(?m)^\s*listen \[::\]:\d+.*\n`)
	if n := len(ipv6.FindAllString(conf, -1)); n != 2 {
		t.Fatalf("nginx/cobble.conf has %d IPv6 listen lines, want 2", n)
	}
	conf = ipv6.ReplaceAllString(conf, "") // the test listens on 127.0.0.1 only
	conf = replaceOnce(t, conf, "listen 443 ssl http2;", fmt.Sprintf("listen 127.0.0.1:%d ssl http2;", https))
	conf = replaceOnce(t, conf, "listen 80;", fmt.Sprintf("listen 127.0.0.1:%d;", plain))
	conf = replaceOnce(t, conf, "server 127.0.0.1:8080;", "server "+upstream+";")
	conf = replaceOnce(t, conf, "/etc/letsencrypt/live/am.example.org/fullchain.pem", cert)
	conf = replaceOnce(t, conf, "/etc/letsencrypt/live/am.example.org/privkey.pem", key)
	if strings.Count(conf, siteLogDir) == 0 {
		t.Fatalf("nginx/cobble.conf writes no access log of its own into %s", siteLogDir)
	}
	conf = strings.ReplaceAll(conf, siteLogDir, s.dir+"/")
	writeFile(t, filepath.Join(s.dir, "cobble.conf"), conf)

	// As root, nginx's workers would run as nobody, who cannot reach the
	// test's temporary directory.
	user := ""
	if os.Geteuid() == 0 {
		user = "user root root;"
	}
	writeFile(t, filepath.Join(s.dir, "nginx.conf"), strings.NewReplacer("DIR", s.dir, "USER", user).Replace(`
USER
worker_processes 1;
pid DIR/nginx.pid;
# As a distribution's nginx.conf has one, at the level that says most.
error_log DIR/error.log info;
events { worker_connections 64; }
http {
    access_log DIR/access.log;
    client_body_temp_path DIR/body;
    proxy_temp_path DIR/proxy;
    fastcgi_temp_path DIR/fastcgi;
    uwsgi_temp_path DIR/uwsgi;
    scgi_temp_path DIR/scgi;
    include DIR/cobble.conf;
}
`))
	return s
}

// siteLogDir is where the shipped site writes its logs; a test's site
// writes them into its own directory.
const siteLogDir = "/var/log/nginx/"

// writeCert writes a self-signed certificate for 127.0.0.1 and its key.
func (s *site) writeCert(t *testing.T) (cert, key string) {
	t.Helper()
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "127.0.0.1"},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, DNSNames: []string{"am.example.org"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage:    x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, IsCA: true, BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &priv.PublicKey, priv)
	if err != nil {
		t.Fatal(err)
	}
	parsed, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	s.roots = x509.NewCertPool()
	s.roots.AddCert(parsed)
	keyDER, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	cert, key = filepath.Join(s.dir, "cert.pem"), filepath.Join(s.dir, "key.pem")
	writeFile(t, cert, string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})))
	writeFile(t, key, string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER})))
	return cert, key
}

// args are nginx's arguments for the site, followed by more.
func (s *site) args(more ...string) []string {
	return append([]string{"-p", s.dir, "-e", "stderr", "-c", filepath.Join(s.dir, "nginx.conf")}, more...)
}

// check runs `nginx -t`, which must say only that the configuration is
// fine: a warning fails the test too.
func (s *site) check(t *testing.T, nginx string) string {
	t.Helper()
	out, err := exec.Command(nginx, s.args("-t")...).CombinedOutput()
	conf := filepath.Join(s.dir, "nginx.conf")
	want := "nginx: the configuration file " + conf + " syntax is ok\n" +
		"nginx: configuration file " + conf + " test is successful\n"
	if err != nil || string(out) != want {
		t.Fatalf("nginx -t: %v\n%s", err, out)
	}
	return string(out)
}

// client returns an HTTPS client that trusts the site's certificate,
// speaks HTTP/2 when nginx offers it, follows no redirect, and connects
// from the loopback address from (127.0.0.0/8 is all loopback on Linux).
func (s *site) client(from string) *http.Client {
	dialer := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}, Timeout: 5 * time.Second}
	return &http.Client{
		Transport: &http.Transport{DialContext: dialer.DialContext, ForceAttemptHTTP2: true,
			TLSClientConfig: &tls.Config{RootCAs: s.roots}},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		Timeout:       20 * time.Second,
	}
}

// url is the site's HTTPS URL of path.
func (s *site) url(path string) string { return fmt.Sprintf("https://127.0.0.1:%d%s", s.https, path) }

// The site passes nginx -t as it is shipped, but for its ports and
// certificate.
func TestNginxSiteChecks(t *testing.T) {
	t.Parallel()
	nginx := requireTool(t, "nginx", "nginx", "/usr/sbin")
	s := newSite(t, "127.0.0.1:8080", testport.Free(t), testport.Free(t))
	t.Logf("nginx -t:\n%s", s.check(t, nginx))
}
