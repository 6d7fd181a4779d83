package accounting

import (
	"context"
	"strconv"

	"github.com/jackc/pgx/v5"
)

// The admin's changes of teams (issue 43): renaming, hiding and deleting,
// each audited in its own transaction.

// AdminTeams returns the teams whose names hold search (folded as names
// are; "" for all), hidden ones included, by name, at most limit.
func (s *AdminStore) AdminTeams(ctx context.Context, search string, limit int) ([]Team, error) {
	rows, _ := s.readPool(ctx).Query(ctx, `SELECT `+teamColumns+` FROM teams t WHERE t.name_key LIKE $1
		ORDER BY t.name_key, t.id LIMIT $2`, likeKey(search), min(max(limit, 1), 500))
	ts, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Team, error) { return scanTeam(r) })
	return ts, op("admin teams", err)
}

// adminTeam locks a team for an admin's change and returns its name and
// whether it is hidden: ErrNotFound when there is none.
func adminTeam(ctx context.Context, tx pgx.Tx, id int64) (name string, hidden bool, err error) {
	err = tx.QueryRow(ctx, `SELECT name, hidden FROM teams WHERE id = $1 FOR UPDATE`, id).Scan(&name, &hidden)
	return name, hidden, dbErr(err)
}

// teamSubject is the audit log's subject for a team.
func teamSubject(id int64) string { return "team " + strconv.FormatInt(id, 10) }

// AdminRenameTeam renames a team, audited. A *ValidationError (field
// "name") for a bad or taken name, ErrNotFound for no such team.
func (s *AdminStore) AdminRenameTeam(ctx context.Context, who Actor, id int64, name string) error {
	nt := NewTeam{Name: name}.clean()
	v := validation{}
	checkTeamName(v, nt.Name)
	if err := v.err(); err != nil {
		return op("rename team", err)
	}
	return op("rename team", s.tx(ctx, func(tx pgx.Tx) error {
		before, _, err := adminTeam(ctx, tx, id)
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE teams SET name = $2, name_key = $3 WHERE id = $1`,
			id, nt.Name, teamKey(nt.Name)); err != nil {
			return nameTaken(err)
		}
		return audit(ctx, tx, who, AuditTeamRename, teamSubject(id), map[string]string{"name": before},
			map[string]string{"name": nt.Name})
	}))
}

// AdminHideTeam hides a team from every public page, board and export,
// or shows it again, audited. ErrNotFound for no such team.
func (s *AdminStore) AdminHideTeam(ctx context.Context, who Actor, id int64, hidden bool) error {
	return op("hide team", s.tx(ctx, func(tx pgx.Tx) error {
		name, before, err := adminTeam(ctx, tx, id)
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE teams SET hidden = $2 WHERE id = $1`, id, hidden); err != nil {
			return err
		}
		return audit(ctx, tx, who, AuditTeamHide, teamSubject(id), map[string]any{"name": name, "hidden": before},
			map[string]any{"name": name, "hidden": hidden})
	}))
}

// AdminDeleteTeam removes a team, its memberships and its history,
// audited. ErrNotFound for no such team.
func (s *AdminStore) AdminDeleteTeam(ctx context.Context, who Actor, id int64) error {
	return op("delete team", s.tx(ctx, func(tx pgx.Tx) error {
		name, _, err := adminTeam(ctx, tx, id)
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM teams WHERE id = $1`, id); err != nil {
			return err
		}
		return audit(ctx, tx, who, AuditTeamDelete, teamSubject(id), map[string]string{"name": name}, nil)
	}))
}
