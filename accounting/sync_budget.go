package accounting

import (
	"time"

	"github.com/jackc/pgx/v5"
)

// A host's budget (budget.go) as the RPC reads and writes it.

// budgetColumns are the columns of hosts that hold its budget.
const budgetColumns = `budget_at, budget_cpu_ec_micro, budget_cpu_time_micro,
	budget_gpu_ec_micro, budget_gpu_time_micro, budget_jobs`

// budgetRow receives budgetColumns.
type budgetRow struct {
	at   *time.Time
	left [5]*int64
}

func (r *budgetRow) dest() []any {
	return []any{&r.at, &r.left[0], &r.left[1], &r.left[2], &r.left[3], &r.left[4]}
}

func (r *budgetRow) budget() budget {
	var b budget
	if r.at != nil {
		b.At = *r.at
	}
	for _, v := range r.left {
		if v == nil {
			return b
		}
	}
	b.Left = &Usage{CPUEC: *r.left[0], CPUTime: *r.left[1], GPUEC: *r.left[2], GPUTime: *r.left[3],
		JobsSuccess: *r.left[4], JobsError: *r.left[4]}
	return b
}

// addArgs adds the values of the budget columns to args, as budget_at,
// budget_cpu_ec, budget_cpu_time, budget_gpu_ec, budget_gpu_time and
// budget_jobs (NULL amounts: a full carry-over), and returns args.
func (b budget) addArgs(args pgx.NamedArgs) pgx.NamedArgs {
	args["budget_at"] = timeOrNil(b.At)
	names := []string{"budget_cpu_ec", "budget_cpu_time", "budget_gpu_ec", "budget_gpu_time", "budget_jobs"}
	for i, name := range names {
		args[name] = nil
		if b.Left != nil {
			l := *b.Left
			args[name] = *l.fields()[i] // JobsSuccess holds the jobs
		}
	}
	return args
}
