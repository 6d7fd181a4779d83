package accounting

import (
	"context"
	"maps"
	"slices"

	"github.com/jackc/pgx/v5"
)

// hostProject is the stored state of one (host, project).
type hostProject struct {
	ProjectID int64
	Assigned  bool
	Attached  bool
}

// assignAndRecord matches the reported projects with the catalog, stores
// what the host reported, chooses its projects and records the choice.
func (s *Store) assignAndRecord(ctx context.Context, tx pgx.Tx, userID, hostID int64, req SyncRequest, res *SyncResult) error {
	catalog, err := s.projects(ctx, tx)
	if err != nil {
		return err
	}
	stored, err := hostProjects(ctx, tx, hostID)
	if err != nil {
		return err
	}
	choices, err := userChoices(ctx, tx, userID)
	if err != nil {
		return err
	}
	in := AssignInput{
		Platforms: req.Host.Platforms, Resources: req.Host.Resources(), Catalog: catalog,
		Choices: choices, Running: map[int64]bool{}, Manual: map[int64]bool{}, Max: s.opts.MaxProjects,
	}
	byKey := make(map[string]Project, len(catalog))
	for _, p := range catalog {
		byKey[urlKey(p.URL)] = p
	}
	reported := map[int64]ProjectReport{}
	for _, r := range req.Projects {
		p, known := byKey[urlKey(r.URL)]
		switch {
		case !known && r.AttachedViaAM:
			res.Unknown = append(res.Unknown, r.URL)
		case !known:
		case r.AttachedViaAM:
			in.Running[p.ID], reported[p.ID] = true, r
		default:
			in.Manual[p.ID], reported[p.ID] = true, r
		}
	}
	for _, hp := range stored {
		if hp.Assigned && !in.Manual[hp.ProjectID] {
			in.Running[hp.ProjectID] = true
		}
	}
	res.Assignments = Assign(in)
	return saveHostProjects(ctx, tx, userID, hostID, stored, reported, res.Assignments, req)
}

func hostProjects(ctx context.Context, tx pgx.Tx, hostID int64) ([]hostProject, error) {
	rows, _ := tx.Query(ctx, `
		SELECT project_id, assigned, attached FROM host_projects WHERE host_id = $1`, hostID)
	return pgx.CollectRows(rows, pgx.RowToStructByPos[hostProject])
}

func userChoices(ctx context.Context, tx pgx.Tx, userID int64) (map[int64]string, error) {
	rows, _ := tx.Query(ctx, `SELECT project_id, choice FROM user_projects WHERE user_id = $1`, userID)
	choices := map[int64]string{}
	var id int64
	var choice string
	_, err := pgx.ForEachRow(rows, []any{&id, &choice}, func() error {
		choices[id] = choice
		return nil
	})
	return choices, err
}

// saveHostProjects writes one row per project the host reported, was
// assigned, or had before: whether it is assigned and attached, the project's
// host id and the raw counters as reported (kept when a request has none).
func saveHostProjects(ctx context.Context, tx pgx.Tx, userID, hostID int64, stored []hostProject,
	reported map[int64]ProjectReport, as []Assignment, req SyncRequest) error {
	assigned := map[int64]bool{}
	for _, a := range as {
		assigned[a.Project.ID] = a.Action != Detach
	}
	ids := map[int64]bool{}
	for _, hp := range stored {
		ids[hp.ProjectID] = true
	}
	for id := range reported {
		ids[id] = true
	}
	for id, ok := range assigned {
		ids[id] = ids[id] || ok
	}
	var b rowBatch
	for _, id := range slices.Sorted(maps.Keys(ids)) {
		b.add(id, assigned[id], reported[id])
	}
	_, err := tx.Exec(ctx, `
		INSERT INTO host_projects AS hp (host_id, user_id, project_id, assigned, attached,
			project_hostid, cpu_ec, cpu_time, gpu_ec, gpu_time, njobs_success, njobs_error, reported_at)
		SELECT $1, $2, u.project_id, u.assigned, u.attached, u.hostid, u.cpu_ec, u.cpu_time,
			u.gpu_ec, u.gpu_time, u.njobs_success, u.njobs_error,
			CASE WHEN u.cpu_ec IS NULL THEN NULL ELSE $3::timestamptz END
		FROM unnest($4::bigint[], $5::bool[], $6::bool[], $7::bigint[], $8::float8[], $9::float8[],
			$10::float8[], $11::float8[], $12::bigint[], $13::bigint[])
			AS u(project_id, assigned, attached, hostid, cpu_ec, cpu_time, gpu_ec, gpu_time,
				njobs_success, njobs_error)
		ON CONFLICT (host_id, project_id) DO UPDATE SET
			assigned = EXCLUDED.assigned,
			attached = EXCLUDED.attached,
			project_hostid = CASE WHEN EXCLUDED.project_hostid > 0
				THEN EXCLUDED.project_hostid ELSE hp.project_hostid END,
			cpu_ec = COALESCE(EXCLUDED.cpu_ec, hp.cpu_ec),
			cpu_time = COALESCE(EXCLUDED.cpu_time, hp.cpu_time),
			gpu_ec = COALESCE(EXCLUDED.gpu_ec, hp.gpu_ec),
			gpu_time = COALESCE(EXCLUDED.gpu_time, hp.gpu_time),
			njobs_success = COALESCE(EXCLUDED.njobs_success, hp.njobs_success),
			njobs_error = COALESCE(EXCLUDED.njobs_error, hp.njobs_error),
			reported_at = COALESCE(EXCLUDED.reported_at, hp.reported_at)`,
		hostID, userID, req.Now, b.ids, b.assigned, b.attached, b.hostIDs,
		b.cpuEC, b.cpuTime, b.gpuEC, b.gpuTime, b.jobsOK, b.jobsErr)
	return err
}

// rowBatch holds host_projects rows as columns, for one unnest insert.
type rowBatch struct {
	ids, hostIDs                   []int64
	assigned, attached             []bool
	cpuEC, cpuTime, gpuEC, gpuTime []*float64
	jobsOK, jobsErr                []*int64
}

func (b *rowBatch) add(projectID int64, assigned bool, r ProjectReport) {
	b.ids = append(b.ids, projectID)
	b.assigned = append(b.assigned, assigned)
	b.attached = append(b.attached, r.URL != "")
	b.hostIDs = append(b.hostIDs, max(r.HostID, 0))
	c := r.Counters
	if c == nil {
		b.cpuEC, b.cpuTime = append(b.cpuEC, nil), append(b.cpuTime, nil)
		b.gpuEC, b.gpuTime = append(b.gpuEC, nil), append(b.gpuTime, nil)
		b.jobsOK, b.jobsErr = append(b.jobsOK, nil), append(b.jobsErr, nil)
		return
	}
	b.cpuEC, b.cpuTime = append(b.cpuEC, &c.CPUEC), append(b.cpuTime, &c.CPUTime)
	b.gpuEC, b.gpuTime = append(b.gpuEC, &c.GPUEC), append(b.gpuTime, &c.GPUTime)
	b.jobsOK, b.jobsErr = append(b.jobsOK, &c.JobsSuccess), append(b.jobsErr, &c.JobsError)
}
