package accounting

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// Catalog lists every project with its host count and last reconciliation.
func (s *CatalogStore) Catalog(ctx context.Context) ([]CatalogRow, error) {
	rows, _ := s.pool.Query(ctx, `
		SELECT `+projectColumns+`,
			(SELECT count(*) FROM host_projects hp WHERE hp.project_id = p.id AND hp.assigned) AS hosts,
			r.run_at AS last_run, COALESCE(r.run_status, '') AS last_status
		FROM projects p
		LEFT JOIN LATERAL (SELECT started_at AS run_at, status AS run_status FROM reconcile_runs
		                   WHERE project_id = p.id ORDER BY started_at DESC LIMIT 1) r ON true
		ORDER BY lower(p.name), p.id`)
	list, err := pgx.CollectRows(rows, pgx.RowToStructByName[CatalogRow])
	return list, op("catalog", err)
}
