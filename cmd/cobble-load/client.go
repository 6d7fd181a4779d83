package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"time"
)

// userAgent is what the real client 7.20.5 on Linux sends.
const userAgent = "BOINC client (x86_64-pc-linux-gnu 7.20.5)"

// rpcClient posts AM requests to one Cobble, or to several instances in
// turn (round robin, as a load balancer would, but one that never leaves
// out an instance that stopped answering).
type rpcClient struct {
	http      *http.Client
	endpoints []string
	next      atomic.Uint64 // the endpoint of the next request, modulo their number
}

// newRPCClient returns a client of the Cobbles at bases that keeps up to
// conns connections open to each. It never uses a proxy: the targets are
// on loopback.
func newRPCClient(bases []string, conns int, timeout time.Duration) *rpcClient {
	tr := &http.Transport{
		Proxy:               nil,
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second}).DialContext,
		MaxIdleConns:        conns,
		MaxIdleConnsPerHost: conns,
		IdleConnTimeout:     90 * time.Second,
		DisableCompression:  true,
	}
	c := &rpcClient{http: &http.Client{Transport: tr, Timeout: timeout}}
	for _, b := range bases {
		c.endpoints = append(c.endpoints, b+"rpc.php")
	}
	return c
}

// close drops idle connections.
func (c *rpcClient) close() { c.http.CloseIdleConnections() }

// send posts body to the next endpoint and reads the whole reply into
// reply. It returns "" when Cobble accepted the RPC (HTTP 200, a reply
// without <error_num>), else the kind of failure, such as "HTTP 503",
// "error_num -206" or "timeout"; with several endpoints, followed by the
// one that failed.
func (c *rpcClient) send(ctx context.Context, body []byte, reply *bytes.Buffer) string {
	endpoint := c.endpoints[0]
	if len(c.endpoints) > 1 {
		endpoint = c.endpoints[(c.next.Add(1)-1)%uint64(len(c.endpoints))]
	}
	kind := c.post(ctx, endpoint, body, reply)
	if kind != "" && len(c.endpoints) > 1 {
		kind += " at " + endpoint
	}
	return kind
}

func (c *rpcClient) post(ctx context.Context, endpoint string, body []byte, reply *bytes.Buffer) string {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, bytes.NewReader(body))
	if err != nil {
		return "request: " + err.Error()
	}
	// As the real client: form-encoded by name, raw XML in fact.
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("User-Agent", userAgent)
	resp, err := c.http.Do(req)
	if err != nil {
		return transportKind(err)
	}
	reply.Reset()
	_, err = reply.ReadFrom(resp.Body)
	resp.Body.Close()
	switch {
	case err != nil:
		return transportKind(err)
	case resp.StatusCode != http.StatusOK:
		return fmt.Sprintf("HTTP %d", resp.StatusCode)
	}
	return replyKind(reply.Bytes())
}

// replyKind is "" for an accepted reply, else what is wrong with it.
func replyKind(b []byte) string {
	if _, rest, ok := bytes.Cut(b, []byte("<error_num>")); ok {
		num, _, _ := bytes.Cut(rest, []byte("</error_num>"))
		return "error_num " + strings.TrimSpace(string(num))
	}
	if !bytes.Contains(b, []byte("<acct_mgr_reply>")) {
		return "not an acct_mgr_reply"
	}
	return ""
}

// transportKind names a failure to get a reply at all.
func transportKind(err error) string {
	var ne net.Error
	switch {
	case errors.Is(err, context.Canceled):
		return "canceled"
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return "timeout"
	}
	var op *net.OpError
	if errors.As(err, &op) {
		return "connection: " + op.Err.Error()
	}
	return "transport: " + err.Error()
}
