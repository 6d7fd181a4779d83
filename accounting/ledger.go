package accounting

import (
	"time"

	"github.com/jackc/pgx/v5"
)

// saveLedger adds the credit changes of one RPC to the daily ledger.
func saveLedger(b *pgx.Batch, userID, hostID int64, changes []creditChange) {
	var projects []int64
	var days []time.Time
	var cols [12][]int64
	for _, c := range changes {
		for _, d := range c.Days {
			projects, days = append(projects, c.ProjectID), append(days, d.Day)
			for i, v := range d.Credited.fields() {
				cols[i] = append(cols[i], *v)
			}
			for i, v := range d.Clamped.fields() {
				cols[6+i] = append(cols[6+i], *v)
			}
		}
	}
	if len(projects) == 0 {
		return
	}
	args := pgx.NamedArgs{"host_id": hostID, "user_id": userID, "project_id": projects, "day": days}
	for i, f := range UsageFields {
		args[f.Column], args[f.Clamped] = cols[i], cols[6+i]
	}
	b.Queue(`
		INSERT INTO ledger AS l (host_id, user_id, project_id, day,
			cpu_ec_micro, cpu_time_micro, gpu_ec_micro, gpu_time_micro, njobs_success, njobs_error,
			clamped_cpu_ec_micro, clamped_cpu_time_micro, clamped_gpu_ec_micro, clamped_gpu_time_micro,
			clamped_njobs_success, clamped_njobs_error)
		SELECT @host_id, @user_id, u.* FROM unnest(@project_id::bigint[], @day::date[],
			@cpu_ec_micro::bigint[], @cpu_time_micro::bigint[], @gpu_ec_micro::bigint[], @gpu_time_micro::bigint[],
			@njobs_success::bigint[], @njobs_error::bigint[],
			@clamped_cpu_ec_micro::bigint[], @clamped_cpu_time_micro::bigint[], @clamped_gpu_ec_micro::bigint[],
			@clamped_gpu_time_micro::bigint[], @clamped_njobs_success::bigint[], @clamped_njobs_error::bigint[]) AS u
		ON CONFLICT (host_id, project_id, day) DO UPDATE SET
			cpu_ec_micro = l.cpu_ec_micro + EXCLUDED.cpu_ec_micro,
			cpu_time_micro = l.cpu_time_micro + EXCLUDED.cpu_time_micro,
			gpu_ec_micro = l.gpu_ec_micro + EXCLUDED.gpu_ec_micro,
			gpu_time_micro = l.gpu_time_micro + EXCLUDED.gpu_time_micro,
			njobs_success = l.njobs_success + EXCLUDED.njobs_success,
			njobs_error = l.njobs_error + EXCLUDED.njobs_error,
			clamped_cpu_ec_micro = l.clamped_cpu_ec_micro + EXCLUDED.clamped_cpu_ec_micro,
			clamped_cpu_time_micro = l.clamped_cpu_time_micro + EXCLUDED.clamped_cpu_time_micro,
			clamped_gpu_ec_micro = l.clamped_gpu_ec_micro + EXCLUDED.clamped_gpu_ec_micro,
			clamped_gpu_time_micro = l.clamped_gpu_time_micro + EXCLUDED.clamped_gpu_time_micro,
			clamped_njobs_success = l.clamped_njobs_success + EXCLUDED.clamped_njobs_success,
			clamped_njobs_error = l.clamped_njobs_error + EXCLUDED.clamped_njobs_error`, args)
}

// saveEvents records what accounting noticed in one RPC.
func saveEvents(b *pgx.Batch, userID, hostID int64, at time.Time, events []event) {
	if len(events) == 0 {
		return
	}
	projects := make([]*int64, len(events))
	kinds := make([]string, len(events))
	details := make([]string, len(events))
	for i, e := range events {
		projects[i], kinds[i] = e.ProjectID, string(e.Kind)
		d, _ := e.Detail.marshal() // strings and counters converted from Usage always marshal
		details[i] = string(d)
	}
	b.Queue(`
		INSERT INTO accounting_events (user_id, host_id, at, project_id, kind, detail)
		SELECT @user_id, @host_id, @at, u.project_id, u.kind, u.detail::jsonb
		FROM unnest(@project_id::bigint[], @kind::text[], @detail::text[]) AS u(project_id, kind, detail)`,
		pgx.NamedArgs{"user_id": userID, "host_id": hostID, "at": at,
			"project_id": projects, "kind": kinds, "detail": details})
}
