package main

import (
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// hostConnectTimeout bounds the attempt to connect to each host of a
// DATABASE_URL that names several, unless the URL sets connect_timeout:
// a host whose machine died answers nothing, and without a bound every new
// connection would wait for the system's TCP timeout (minutes) before pgx
// tries the next host.
const hostConnectTimeout = 5 * time.Second

// followPrimary checks and completes the connection settings of a
// DATABASE_URL that names several hosts, such as a pg_auto_failover
// formation's: it must ask for the read-write one
// (target_session_attrs=read-write or primary), else Cobble could write to
// a standby; and each host gets hostConnectTimeout.
func followPrimary(cc *pgconn.Config) error {
	if distinctHosts(cc) < 2 {
		return nil
	}
	if cc.ValidateConnect == nil {
		return fmt.Errorf("%w: DATABASE_URL names several hosts but not which one to use: "+
			"add ?target_session_attrs=read-write, so that Cobble connects to the primary", errUsage)
	}
	if cc.ConnectTimeout == 0 {
		cc.ConnectTimeout = hostConnectTimeout
	}
	return nil
}

// distinctHosts counts the host:port pairs pgx tries (it tries each with
// and without TLS under sslmode=prefer).
func distinctHosts(cc *pgconn.Config) int {
	seen := map[string]bool{net.JoinHostPort(cc.Host, strconv.Itoa(int(cc.Port))): true}
	for _, f := range cc.Fallbacks {
		seen[net.JoinHostPort(f.Host, strconv.Itoa(int(f.Port)))] = true
	}
	return len(seen)
}
