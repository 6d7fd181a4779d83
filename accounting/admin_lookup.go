package accounting

import (
	"context"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
)

// Lookup finds volunteers by email or name (prefix, any letter case) and
// hosts by host CPID, domain name (prefix) or a project's host id (a
// number), each through an index.
func (s *AdminStore) Lookup(ctx context.Context, q string) (LookupResult, error) {
	var res LookupResult
	q = strings.TrimSpace(q)
	if q == "" || len(q) > 254 || !Printable(q) {
		return res, nil
	}
	prefix := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(strings.ToLower(q)) + "%"
	rows, _ := s.readPool(ctx).Query(ctx, `
		SELECT id, email, name, is_admin, disabled_at IS NOT NULL AS disabled, created_at FROM users
		WHERE lower(email) LIKE @prefix OR lower(name) LIKE @prefix
		ORDER BY lower(email) LIMIT 50`, pgx.NamedArgs{"prefix": prefix})
	var err error
	if res.Users, err = pgx.CollectRows(rows, pgx.RowToStructByName[UserHit]); err != nil {
		return res, op("lookup", err)
	}
	hostid, _ := strconv.ParseInt(q, 10, 64)
	// Each way of finding a host through its own index, planned for the
	// words asked (a LIKE prefix needs its value to use one): joined by OR
	// in one WHERE, the three read every host.
	rows, _ = s.readPool(ctx).Query(ctx, `
		SELECT h.id, h.user_id, u.email, h.domain_name, h.host_cpid AS cpid, h.last_rpc_at
		FROM hosts h JOIN users u ON u.id = h.user_id
		WHERE h.id IN (SELECT id FROM hosts WHERE host_cpid = @q
			UNION SELECT id FROM hosts WHERE lower(domain_name) LIKE @prefix
			UNION SELECT host_id FROM host_projects WHERE project_hostid = @hostid AND project_hostid > 0)
		ORDER BY h.id LIMIT 50`, pgx.QueryExecModeExec, pgx.NamedArgs{"q": q, "prefix": prefix, "hostid": hostid})
	res.Hosts, err = pgx.CollectRows(rows, pgx.RowToStructByName[HostHit])
	return res, op("lookup", err)
}
