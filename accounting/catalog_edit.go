package accounting

import (
	"context"
	"fmt"
	"net/url"
	"reflect"
	"strings"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
)

// CanonicalProjectURL puts a master URL in the form BOINC clients use: the
// scheme (http or https) in lower case, no doubled slashes after it, the
// host in lower case, and a trailing slash. White space around it goes.
// It does not check the URL; ValidProjectURL does.
func CanonicalProjectURL(s string) string {
	s = strings.TrimSpace(s)
	scheme, rest, ok := strings.Cut(s, "://")
	if !ok || !utf8.ValidString(s) {
		return s
	}
	for strings.Contains(rest, "//") {
		rest = strings.ReplaceAll(rest, "//", "/")
	}
	if !strings.HasSuffix(rest, "/") {
		rest += "/"
	}
	host, path, _ := strings.Cut(rest, "/")
	return strings.ToLower(scheme) + "://" + strings.ToLower(host) + "/" + path
}

// ValidProjectURL says whether s is a master URL in canonical form as the
// BOINC client checks it (http:// or https://, a host with a dot that is
// neither first nor last, a path after it, a trailing slash), and one that
// Cobble can sign and send unchanged: no user, printable ASCII only, none
// of the characters XML escapes, at most 512 bytes.
func ValidProjectURL(s string) bool {
	rest, ok := strings.CutPrefix(s, "http://")
	if !ok {
		if rest, ok = strings.CutPrefix(s, "https://"); !ok {
			return false
		}
	}
	host, _, ok := strings.Cut(rest, "/")
	dot := strings.IndexByte(host, '.')
	if !ok || dot <= 0 || strings.HasSuffix(host, ".") || !strings.HasSuffix(s, "/") || strings.Contains(rest, "//") {
		return false
	}
	return validHTTPURL(s) && !strings.ContainsAny(s, "&<>\"'\\") &&
		!strings.ContainsFunc(s, func(r rune) bool { return r <= ' ' || r > '~' })
}

func validHTTPURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && utf8.ValidString(s) &&
		strings.Contains(u.Hostname(), ".") && u.User == nil && len(s) <= 512
}

// ParseList splits comma-separated text into trimmed, non-empty items.
func ParseList(text string) []string {
	var out []string
	for _, f := range strings.Split(text, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// AddProjectAs adds p to the catalog and records who did it in the audit
// log, in one transaction. A URL already there (in any letter case, scheme
// or trailing slash) is ErrConflict.
func (s *CatalogStore) AddProjectAs(ctx context.Context, who Actor, p Project) (Project, error) {
	if err := p.Validate(); err != nil {
		return Project{}, op("add project", err)
	}
	err := s.tx(ctx, func(tx pgx.Tx) error {
		rows, _ := tx.Query(ctx, `
			INSERT INTO projects (url, name, description, keywords, platforms, resources,
				authenticator, stats_url, share, status, area, account_email)
			VALUES (@url, @name, @description, @keywords, @platforms, @resources,
				@authenticator, @stats_url, @share, @status, @area, @account_email)
			RETURNING `+projectColumns, projectArgs(p))
		var err error
		if p, err = pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[Project]); err != nil {
			return dbErr(err)
		}
		return audit(ctx, tx, who, AuditProjectAdd, projectSubject(p), nil, auditView(p))
	})
	s.forgetCatalog()
	return p, op("add project", err)
}

// EditProject changes the catalog entry id with change, validates the
// result and records what changed in the audit log, in one transaction.
// An unknown id is ErrNotFound; a URL another project has is ErrConflict.
func (s *CatalogStore) EditProject(ctx context.Context, who Actor, id int64, change func(*Project)) (Project, error) {
	var after Project
	err := s.tx(ctx, func(tx pgx.Tx) error {
		rows, _ := tx.Query(ctx, `SELECT `+projectColumns+` FROM projects WHERE id = $1 FOR UPDATE`, id)
		before, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[Project])
		if err != nil {
			return dbErr(err)
		}
		after = before
		after.Keywords, after.Platforms = append([]int(nil), before.Keywords...), append([]string(nil), before.Platforms...)
		after.Resources = append([]string(nil), before.Resources...)
		change(&after)
		after.ID, after.CreatedAt = before.ID, before.CreatedAt
		if err := after.Validate(); err != nil {
			return err
		}
		b, a := projectDiff(before, after)
		if len(a) == 0 {
			return nil
		}
		args := projectArgs(after)
		args["id"] = id
		if _, err := tx.Exec(ctx, `
			UPDATE projects SET url = @url, name = @name, description = @description, keywords = @keywords,
				platforms = @platforms, resources = @resources, authenticator = @authenticator,
				stats_url = @stats_url, share = @share, status = @status, area = @area,
				account_email = @account_email
			WHERE id = @id`, args); err != nil {
			return dbErr(err)
		}
		kind := AuditProjectEdit
		if _, only := a["status"]; only && len(a) == 1 {
			kind = AuditProjectStatus
		}
		return audit(ctx, tx, who, kind, projectSubject(after), b, a)
	})
	s.forgetCatalog()
	return after, op("edit project", err)
}

// SetProjectStatusAs activates, pauses or retires a project, audited.
func (s *CatalogStore) SetProjectStatusAs(ctx context.Context, who Actor, id int64, status ProjectStatus) (Project, error) {
	return s.EditProject(ctx, who, id, func(p *Project) { p.Status = status })
}

func projectArgs(p Project) pgx.NamedArgs {
	return pgx.NamedArgs{"url": p.URL, "name": p.Name, "description": p.Description,
		"keywords": nonNilInts(p.Keywords), "platforms": nonNil(p.Platforms), "resources": p.Resources,
		"authenticator": p.Authenticator, "stats_url": p.StatsURL, "share": p.Share,
		"status": p.Status, "area": p.Area, "account_email": p.AccountEmail}
}

func projectSubject(p Project) string { return fmt.Sprintf("project %d %s", p.ID, p.URL) }

// auditView is what the audit log keeps of a project: everything but the
// authenticator, which admins never see.
func auditView(p Project) map[string]any {
	return map[string]any{"url": p.URL, "name": p.Name, "description": p.Description,
		"keywords": FormatKeywords(p.Keywords), "platforms": strings.Join(p.Platforms, ", "),
		"resources": strings.Join(p.Resources, ", "), "stats_url": p.StatsURL, "share": p.Share,
		"status": string(p.Status), "area": p.Area, "account_email": p.AccountEmail}
}

// projectDiff returns the audit views' fields that differ; a replaced
// authenticator shows as "replaced", never its value.
func projectDiff(before, after Project) (b, a map[string]any) {
	vb, va := auditView(before), auditView(after)
	b, a = map[string]any{}, map[string]any{}
	for k, v := range va {
		if !reflect.DeepEqual(vb[k], v) {
			b[k], a[k] = vb[k], v
		}
	}
	if before.Authenticator != after.Authenticator {
		b["authenticator"], a["authenticator"] = "(previous)", "(replaced)"
	}
	return b, a
}
