package boinctest

import (
	"bufio"
	"context"
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"
)

// GUIRPC sends one request to the client's GUI RPC port after
// authenticating with its password, and returns the reply's text between
// <boinc_gui_rpc_reply> and its end tag. It reaches the RPCs boinccmd
// 7.20.5 has no option for, such as <get_global_prefs_working/> (the
// preferences in force). The exchange is bounded by ctx and CmdTimeout.
func (c *Client) GUIRPC(ctx context.Context, request string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, CmdTimeout)
	defer cancel()
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", "127.0.0.1:"+strconv.Itoa(c.RPCPort))
	if err != nil {
		return "", fmt.Errorf("gui rpc: %w", err)
	}
	defer conn.Close()
	if dl, ok := ctx.Deadline(); ok {
		conn.SetDeadline(dl)
	} else {
		conn.SetDeadline(time.Now().Add(CmdTimeout))
	}
	r := bufio.NewReader(conn)
	exchange := func(body string) (string, error) {
		msg := "<boinc_gui_rpc_request>\n" + body + "\n</boinc_gui_rpc_request>\n\x03"
		if _, err := conn.Write([]byte(msg)); err != nil {
			return "", err
		}
		reply, err := r.ReadString('\x03')
		if err != nil {
			return "", err
		}
		_, inner, _ := strings.Cut(reply, "<boinc_gui_rpc_reply>")
		inner, _, _ = strings.Cut(inner, "</boinc_gui_rpc_reply>")
		return inner, nil
	}
	nonceReply, err := exchange("<auth1/>")
	if err != nil {
		return "", fmt.Errorf("gui rpc auth1: %w", err)
	}
	_, nonce, _ := strings.Cut(nonceReply, "<nonce>")
	nonce, _, _ = strings.Cut(nonce, "</nonce>")
	sum := md5.Sum([]byte(nonce + c.Password))
	auth, err := exchange("<auth2>\n<nonce_hash>" + hex.EncodeToString(sum[:]) + "</nonce_hash>\n</auth2>")
	if err != nil || !strings.Contains(auth, "<authorized/>") {
		return "", fmt.Errorf("gui rpc auth2: %v %q", err, auth)
	}
	out, err := exchange(request)
	if err != nil {
		return "", fmt.Errorf("gui rpc %s: %w", request, err)
	}
	return out, nil
}
