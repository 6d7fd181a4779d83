package accounting

import (
	"fmt"
	"math"
	"strings"
)

// Amounts of credit and of time are kept in whole millionths (micro-units):
// sums and differences of them are exact, so the ledger adds up to the last
// Cobblestone however often a delta is split.
const microPerUnit = 1_000_000

// maxMicro is the largest amount a counter may hold: about 9.2e12 credits
// or seconds, far beyond any real host's lifetime.
const maxMicro = math.MaxInt64 / 4

// Usage is a set of counter amounts: credits and seconds in micro-units,
// jobs as whole jobs. UsageFields describes the six amounts, in order.
type Usage struct {
	CPUEC, CPUTime, GPUEC, GPUTime int64
	JobsSuccess, JobsError         int64
}

// UsageField is one of the six counters: its name, as the client reports
// it and as event details and day totals spell it, and the columns that
// hold it.
type UsageField struct {
	Name    string // the client's name, such as cpu_ec
	Column  string // the ledger's column of credited amounts
	Clamped string // the ledger's column of amounts claimed beyond the limits
	Last    string // host_projects' column of the last report
	Total   string // host_projects' column of the lifetime total
	Micro   bool   // kept in micro-units (credit, seconds); else whole jobs
}

// UsageFields are the six counters, in the order of Usage's fields (and
// of Values): rebuilding totals, the day totals and the RPC's writes go
// through them.
var UsageFields = [6]UsageField{
	{"cpu_ec", "cpu_ec_micro", "clamped_cpu_ec_micro", "last_cpu_ec_micro", "total_cpu_ec_micro", true},
	{"cpu_time", "cpu_time_micro", "clamped_cpu_time_micro", "last_cpu_time_micro", "total_cpu_time_micro", true},
	{"gpu_ec", "gpu_ec_micro", "clamped_gpu_ec_micro", "last_gpu_ec_micro", "total_gpu_ec_micro", true},
	{"gpu_time", "gpu_time_micro", "clamped_gpu_time_micro", "last_gpu_time_micro", "total_gpu_time_micro", true},
	{"njobs_success", "njobs_success", "clamped_njobs_success", "last_njobs_success", "total_njobs_success", false},
	{"njobs_error", "njobs_error", "clamped_njobs_error", "last_njobs_error", "total_njobs_error", false},
}

// estimatedCredit is estimated credit: CPU plus GPU. It is the one place Go code
// adds the two; Usage's, Counters' and a history day's credit go through it.
func estimatedCredit[T int64 | float64](cpuEC, gpuEC T) T { return cpuEC + gpuEC }

// CreditSQL is the SQL of estimated credit, CPU plus GPU, in
// micro-Cobblestones, over the counter columns whose names start with
// prefix: a table's alias ("l."), a kind of column ("total_",
// "clamped_"), or both ("hp.total_"). Every query spells credit with it.
func CreditSQL(prefix string) string {
	return "(" + prefix + UsageFields[0].Column + " + " + prefix + UsageFields[2].Column + ")"
}

// UsageList is the SQL list of the six counters, in the order of
// UsageFields: format filled in, as by fmt (the column is %[1]s), with the
// column of each field that col picks, joined by ", ". Every statement
// that names the six counters builds its list with it.
func UsageList(format string, col func(UsageField) string) string {
	items := make([]string, len(UsageFields))
	for i, f := range UsageFields {
		items[i] = fmt.Sprintf(format, col(f))
	}
	return strings.Join(items, ", ")
}

// LedgerColumn picks the ledger's column of credited amounts, for
// UsageList; ClampedColumn, LastColumn and TotalColumn pick the others.
func LedgerColumn(f UsageField) string { return f.Column }

// ClampedColumn picks the ledger's column of amounts claimed beyond the
// limits.
func ClampedColumn(f UsageField) string { return f.Clamped }

// LastColumn picks host_projects' column of the last report.
func LastColumn(f UsageField) string { return f.Last }

// TotalColumn picks host_projects' column of the lifetime total.
func TotalColumn(f UsageField) string { return f.Total }

// Unit returns v, an amount of the field, in whole units.
func (f UsageField) Unit(v int64) float64 {
	if f.Micro {
		return fromMicro(v)
	}
	return float64(v)
}

// toMicro converts a reported value; ok is false for NaN, infinities,
// negatives and values beyond maxMicro.
func toMicro(f float64) (int64, bool) {
	if math.IsNaN(f) || f < 0 || f*microPerUnit > maxMicro {
		return 0, false
	}
	return int64(math.Round(f * microPerUnit)), true
}

// fromMicro converts micro-units to a float for display and replies.
func fromMicro(m int64) float64 { return float64(m) / microPerUnit }

// usageOf converts reported counters; ok is false if any value is unusable.
func usageOf(c Counters) (Usage, bool) {
	var u Usage
	ok := true
	for _, f := range []struct {
		dst *int64
		v   float64
	}{{&u.CPUEC, c.CPUEC}, {&u.CPUTime, c.CPUTime}, {&u.GPUEC, c.GPUEC}, {&u.GPUTime, c.GPUTime}} {
		m, good := toMicro(f.v)
		*f.dst, ok = m, ok && good
	}
	u.JobsSuccess, u.JobsError = c.JobsSuccess, c.JobsError
	return u, ok && c.JobsSuccess >= 0 && c.JobsError >= 0 &&
		c.JobsSuccess <= maxMicro && c.JobsError <= maxMicro
}

// fields returns pointers to u's six amounts, in the order of UsageFields.
func (u *Usage) fields() [6]*int64 {
	return [6]*int64{&u.CPUEC, &u.CPUTime, &u.GPUEC, &u.GPUTime, &u.JobsSuccess, &u.JobsError}
}

// Values returns u's six amounts, in the order of UsageFields.
func (u Usage) Values() (v [6]int64) {
	for i, f := range u.fields() {
		v[i] = *f
	}
	return v
}

// Add returns u + v.
func (u Usage) Add(v Usage) Usage {
	fu, fv := u.fields(), v.fields()
	for i := range fu {
		*fu[i] += *fv[i]
	}
	return u
}

// Sub returns u − v.
func (u Usage) Sub(v Usage) Usage {
	fu, fv := u.fields(), v.fields()
	for i := range fu {
		*fu[i] -= *fv[i]
	}
	return u
}

// IsZero reports whether every amount is 0.
func (u Usage) IsZero() bool { return u == Usage{} }

// decreased reports whether any amount of u is below v's.
func (u Usage) decreased(v Usage) bool {
	fu, fv := u.fields(), v.fields()
	for i := range fu {
		if *fu[i] < *fv[i] {
			return true
		}
	}
	return false
}

// Credit returns the estimated credit, CPU plus GPU, in Cobblestones.
func (u Usage) Credit() float64 { return fromMicro(u.CreditMicro()) }

// CreditMicro returns the estimated credit, CPU plus GPU, in
// micro-Cobblestones.
func (u Usage) CreditMicro() int64 { return estimatedCredit(u.CPUEC, u.GPUEC) }

// counters returns u in the client's units.
func (u Usage) counters() Counters {
	return Counters{CPUEC: fromMicro(u.CPUEC), CPUTime: fromMicro(u.CPUTime), GPUEC: fromMicro(u.GPUEC),
		GPUTime: fromMicro(u.GPUTime), JobsSuccess: u.JobsSuccess, JobsError: u.JobsError}
}
