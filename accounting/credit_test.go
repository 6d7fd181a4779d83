package accounting

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"
	"golang.org/x/crypto/bcrypt"

	"github.com/cobble-am/cobble/boinc"
	"github.com/cobble-am/cobble/internal/testdb"
)

// cpuHost is a 2-core, 1 GFLOPS-per-core host without GPUs.
var cpuHost = Capacity{NCPUs: 2, PFPOps: 1e9}

// perSecond is what cpuHost may earn per second: 2 cores × 1e9 × SCALE.
var perSecond = 2 * 1e9 * CobblestoneScale

var t0 = time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)

func micro(f float64) int64 { m, _ := toMicro(f); return m }

// floorMicro is a limit in micro-units: limits round down.
func floorMicro(f float64) int64 { return int64(math.Floor(f * microPerUnit)) }

func stored(last Usage, at time.Time) map[int64]*hostProject {
	return map[int64]*hostProject{1: {ProjectID: 1, Last: &last, ReportedAt: at}}
}

func TestCredit(t *testing.T) {
	t.Parallel()
	hour := time.Hour
	tests := []struct {
		name              string
		capacity          Capacity
		stored            map[int64]*hostProject
		report            Usage
		dt                time.Duration
		credited, clamped Usage
		reset             bool
		days              int
	}{
		{name: "first sighting is the baseline", capacity: cpuHost,
			report: Usage{CPUEC: micro(5), CPUTime: micro(100)}, dt: hour},
		{name: "a delta within the limits is credited whole", capacity: cpuHost,
			stored: stored(Usage{CPUEC: micro(10), CPUTime: micro(1000), JobsSuccess: 3}, t0),
			report: Usage{CPUEC: micro(11.5), CPUTime: micro(4600), JobsSuccess: 5}, dt: hour,
			credited: Usage{CPUEC: micro(1.5), CPUTime: micro(3600), JobsSuccess: 2}, days: 1},
		{name: "over the CPU limit the excess is clamped", capacity: cpuHost,
			stored: stored(Usage{}, t0),
			report: Usage{CPUEC: micro(1000), CPUTime: micro(1e6)}, dt: hour,
			// The budget: a minute carried over plus the hour, each rounded down.
			credited: Usage{CPUEC: floorMicro(perSecond*60) + floorMicro(perSecond*3600), CPUTime: micro(2 * 3660)},
			clamped: Usage{CPUEC: micro(1000) - floorMicro(perSecond*60) - floorMicro(perSecond*3600),
				CPUTime: micro(1e6) - micro(2*3660)}, days: 1},
		{name: "a reset credits the new value", capacity: cpuHost,
			stored: stored(Usage{CPUEC: micro(500), CPUTime: micro(9000), JobsSuccess: 40}, t0),
			report: Usage{CPUEC: micro(0.25), CPUTime: micro(60), JobsSuccess: 1}, dt: hour,
			credited: Usage{CPUEC: micro(0.25), CPUTime: micro(60), JobsSuccess: 1}, reset: true, days: 1},
		{name: "GPU credit is limited by count squared", capacity: Capacity{NCPUs: 1, PFPOps: 1e9,
			GPUs: []Coproc{{Type: "NVIDIA", Count: 2, PeakFLOPS: 1e12}}},
			stored: stored(Usage{}, t0),
			// 2² × 0.2 × 1e12 × 3660 s × SCALE is the most; claim one Cobblestone more.
			report: Usage{GPUEC: micro(4*0.2*1e12*3660*CobblestoneScale + 1), GPUTime: micro(2 * 3600)}, dt: hour,
			credited: Usage{GPUEC: floorMicro(4 * 0.2 * 1e12 * 3660 * CobblestoneScale), GPUTime: micro(2 * 3600)},
			clamped:  Usage{GPUEC: micro(4*0.2*1e12*3660*CobblestoneScale+1) - floorMicro(4*0.2*1e12*3660*CobblestoneScale)},
			days:     1},
		{name: "a host without GPUs earns no GPU credit", capacity: cpuHost,
			stored: stored(Usage{}, t0), report: Usage{GPUEC: micro(3), GPUTime: micro(10)}, dt: hour,
			clamped: Usage{GPUEC: micro(3), GPUTime: micro(10)}, days: 1},
		{name: "jobs beyond the interval's bound are clamped", capacity: cpuHost,
			stored: stored(Usage{}, t0), report: Usage{JobsSuccess: 1000, JobsError: 1000}, dt: 100 * time.Second,
			// 2 slots × 160 s / 10 s + 10 = 42 jobs, split in proportion.
			credited: Usage{JobsSuccess: 21, JobsError: 21}, clamped: Usage{JobsSuccess: 979, JobsError: 979}, days: 1},
		{name: "unchanged counters credit nothing", capacity: cpuHost,
			stored: stored(Usage{CPUEC: micro(1)}, t0), report: Usage{CPUEC: micro(1)}, dt: hour},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			changes := credit(creditInput{Now: t0.Add(tt.dt), Capacity: tt.capacity, Budget: budget{At: t0},
				Loc: time.UTC, Reports: map[int64]Usage{1: tt.report}, Stored: tt.stored}).Changes
			if tt.stored == nil {
				if len(changes) != 0 {
					t.Fatalf("first sighting credited %+v", changes)
				}
				return
			}
			if len(changes) != 1 {
				t.Fatalf("got %d changes, want 1", len(changes))
			}
			c := changes[0]
			if diff := cmp.Diff(tt.credited, c.Credited); diff != "" {
				t.Errorf("credited (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.clamped, c.Clamped); diff != "" {
				t.Errorf("clamped (-want +got):\n%s", diff)
			}
			if c.Reset != tt.reset || len(c.Days) != tt.days {
				t.Errorf("reset %v days %d, want %v %d", c.Reset, len(c.Days), tt.reset, tt.days)
			}
		})
	}
}

// Over the limit, each project keeps the same fraction of its claim.
func TestCreditClampsAcrossProjects(t *testing.T) {
	t.Parallel()
	st := map[int64]*hostProject{
		1: {ProjectID: 1, Last: &Usage{}, ReportedAt: t0},
		2: {ProjectID: 2, Last: &Usage{}, ReportedAt: t0},
	}
	limit := 2 * (3600.0 + 60) // CPU seconds cpuHost can do in an hour
	changes := credit(creditInput{Now: t0.Add(time.Hour), Capacity: cpuHost, Budget: budget{At: t0}, Loc: time.UTC,
		Stored: st, Reports: map[int64]Usage{1: {CPUTime: micro(limit)}, 2: {CPUTime: micro(3 * limit)}}}).Changes
	if got := changes[0].Credited.CPUTime + changes[1].Credited.CPUTime; got > micro(limit) || got < micro(limit)-2 {
		t.Errorf("credited %d µs in all, want %d", got, micro(limit))
	}
	if r := float64(changes[1].Credited.CPUTime) / float64(changes[0].Credited.CPUTime); r < 2.999 || r > 3.001 {
		t.Errorf("shares %d and %d are not 1:3", changes[0].Credited.CPUTime, changes[1].Credited.CPUTime)
	}
}

func TestSpread(t *testing.T) {
	t.Parallel()
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		t.Fatal(err)
	}
	day := func(s string) time.Time { d, _ := time.Parse("2006-01-02", s); return d }
	u := Usage{CPUEC: 1_000_001, JobsSuccess: 3}
	tests := []struct {
		name     string
		from, to time.Time
		loc      *time.Location
		want     []DayUsage
	}{
		{"within a day", t0, t0.Add(time.Hour), time.UTC,
			[]DayUsage{{Day: day("2026-03-10"), Credited: u}}},
		{"across midnight, half each", time.Date(2026, 3, 10, 23, 0, 0, 0, time.UTC),
			time.Date(2026, 3, 11, 1, 0, 0, 0, time.UTC), time.UTC, []DayUsage{
				{Day: day("2026-03-10"), Credited: Usage{CPUEC: 500_000, JobsSuccess: 1}},
				{Day: day("2026-03-11"), Credited: Usage{CPUEC: 500_001, JobsSuccess: 2}}}},
		// The same instants are one day in Paris: 00:00 to 02:00 on the 11th.
		{"the volunteer's time zone", time.Date(2026, 3, 10, 23, 0, 0, 0, time.UTC),
			time.Date(2026, 3, 11, 1, 0, 0, 0, time.UTC), paris,
			[]DayUsage{{Day: day("2026-03-11"), Credited: u}}},
		{"backward interval lands on the last day", t0, t0.Add(-time.Hour), time.UTC,
			[]DayUsage{{Day: day("2026-03-10"), Credited: u}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, spread(u, Usage{}, tt.from, tt.to, tt.loc)); diff != "" {
				t.Errorf("spread (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSpreadOverAWeek(t *testing.T) {
	t.Parallel()
	from := time.Date(2026, 3, 1, 18, 0, 0, 0, time.UTC)
	to := from.Add(7 * 24 * time.Hour)
	u := Usage{CPUEC: 7_000_000_003, CPUTime: 604_800_000_000, GPUEC: 1, JobsSuccess: 13, JobsError: 1}
	days := spread(u, Usage{CPUTime: 5}, from, to, time.UTC)
	if len(days) != 8 {
		t.Fatalf("%d days, want 8 (a partial first and last day)", len(days))
	}
	var sum, clamped Usage
	for _, d := range days {
		sum, clamped = sum.Add(d.Credited), clamped.Add(d.Clamped)
		for _, f := range d.Credited.fields() {
			if *f < 0 {
				t.Fatalf("negative share on %v: %+v", d.Day, d.Credited)
			}
		}
	}
	if sum != u || clamped != (Usage{CPUTime: 5}) {
		t.Errorf("shares add up to %+v / %+v", sum, clamped)
	}
	// A full middle day holds 1/7 of the time.
	if got := days[3].Credited.CPUTime; got != 86_400_000_000 {
		t.Errorf("a full day got %d µs of CPU time, want 86400 s", got)
	}
}

// A volunteer who changes time zone between two RPCs has the credit of
// the later RPC dated in the new zone, while the days already in the
// ledger keep the dates they had in the old one.
func TestCreditFollowsTimeZoneChange(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := testdb.New(t)
	s := NewStore(pool, Options{PasswordCost: bcrypt.MinCost})
	u, err := s.Accounts.CreateUser(ctx, NewUser{Email: "ada@example.org", Password: "first-pass"}) // in UTC
	if err != nil {
		t.Fatal(err)
	}
	const url = "https://proj.example.org/"
	if _, err := s.Catalog.AddProject(ctx, Project{URL: url, Name: "P", Authenticator: "k"}); err != nil {
		t.Fatal(err)
	}
	host := HostReport{CPID: "cpid-1", Platforms: []string{"x86_64-pc-linux-gnu"}, NCPUs: 4, PFPOps: 2e9}
	res, err := s.Sync.Sync(ctx, SyncRequest{Email: u.Email, PasswordHash: boinc.PasswordHash("first-pass", u.Email),
		Host: host, Now: time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	sync := func(hour int, c Counters) {
		t.Helper()
		_, err := s.Sync.Sync(ctx, SyncRequest{Authenticator: res.Authenticator, HostToken: res.HostToken, Host: host,
			Projects: []ProjectReport{{URL: url, AttachedViaAM: true, HostID: 77, Counters: &c}},
			Now:      time.Date(2026, 3, 10, hour, 0, 0, 0, time.UTC)})
		if err != nil {
			t.Fatalf("sync at %02d:00 UTC: %v", hour, err)
		}
	}
	sync(14, Counters{}) // the baseline
	// 14:00 to 16:00 UTC: March 10th in UTC (in Tokyo it would straddle midnight).
	sync(16, Counters{CPUEC: 2, CPUTime: 7200})
	if err := s.Accounts.SetTimeZone(ctx, u.ID, "Asia/Tokyo"); err != nil {
		t.Fatal(err)
	}
	// 16:00 to 18:00 UTC is 01:00 to 03:00 on March 11th in Tokyo.
	sync(18, Counters{CPUEC: 5, CPUTime: 14400})

	type day struct {
		Day      string  `db:"day"`
		CPUEC    float64 `db:"cpu_ec"`
		CPUTimeS float64 `db:"cpu_time"`
	}
	rows, _ := pool.Query(ctx, `SELECT to_char(day, 'YYYY-MM-DD') AS day, cpu_ec_micro / 1e6 AS cpu_ec, cpu_time_micro / 1e6 AS cpu_time
		FROM ledger WHERE user_id = $1 ORDER BY day`, u.ID)
	got, err := pgx.CollectRows(rows, pgx.RowToStructByName[day])
	if err != nil {
		t.Fatal(err)
	}
	want := []day{{"2026-03-10", 2, 7200}, {"2026-03-11", 3, 7200}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ledger days (-want +got):\n%s", diff)
	}
}

func TestCapacityClampsImplausibleClaims(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		host   HostReport
		want   Capacity
		issues int
	}{
		{"plausible", HostReport{NCPUs: 16, PFPOps: 4e9, Coprocs: []Coproc{{Type: "NVIDIA", Count: 1, PeakFLOPS: 3e13}}},
			Capacity{NCPUs: 16, PFPOps: 4e9, GPUs: []Coproc{{Type: "NVIDIA", Count: 1, PeakFLOPS: 3e13}}}, 0},
		{"absurd cores", HostReport{NCPUs: 1 << 20, PFPOps: 4e9}, Capacity{NCPUs: 1, PFPOps: 4e9}, 1},
		{"negative cores", HostReport{NCPUs: -4, PFPOps: 4e9}, Capacity{NCPUs: 1, PFPOps: 4e9}, 1},
		{"NaN FLOPS", HostReport{NCPUs: 2, PFPOps: nan()}, Capacity{NCPUs: 2, PFPOps: defaultPFPOps}, 1},
		{"infinite FLOPS", HostReport{NCPUs: 2, PFPOps: inf()}, Capacity{NCPUs: 2, PFPOps: defaultPFPOps}, 1},
		{"absurd GPUs are dropped", HostReport{NCPUs: 2, PFPOps: 1e9, Coprocs: []Coproc{
			{Type: "NVIDIA", Count: 5000, PeakFLOPS: 1e13}, {Type: "ATI", Count: 1, PeakFLOPS: inf()}}},
			Capacity{NCPUs: 2, PFPOps: 1e9}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, issues := capacityOf(tt.host)
			if diff := cmp.Diff(tt.want, got); diff != "" || len(issues) != tt.issues {
				t.Errorf("capacity (-want +got):\n%s\nissues %q, want %d", diff, issues, tt.issues)
			}
		})
	}
}

func TestUsageOfRejectsUnusableCounters(t *testing.T) {
	t.Parallel()
	for _, c := range []Counters{{CPUEC: nan()}, {CPUTime: -1}, {GPUEC: inf()}, {JobsError: -1}, {CPUEC: 1e300}} {
		if _, ok := usageOf(c); ok {
			t.Errorf("usageOf(%+v) accepted", c)
		}
	}
	u, ok := usageOf(Counters{CPUEC: 12345.678, CPUTime: 86400.5, GPUEC: 250.25, GPUTime: 3600, JobsSuccess: 42, JobsError: 3})
	want := Usage{CPUEC: 12_345_678_000, CPUTime: 86_400_500_000, GPUEC: 250_250_000, GPUTime: 3_600_000_000,
		JobsSuccess: 42, JobsError: 3}
	if !ok || u != want {
		t.Errorf("usageOf = %+v %v, want %+v", u, ok, want)
	}
}

func TestUpdateAverage(t *testing.T) {
	t.Parallel()
	// Earning a steady 100 credits a day for many weeks converges on 100.
	avg, at := 0.0, time.Time{}
	for i := 1; i <= 24*7*8; i++ {
		now := t0.Add(time.Duration(i) * time.Hour)
		avg, at = updateAverage(avg, at, 100.0/24, time.Hour, time.Hour, now)
	}
	if avg < 99 || avg > 101 {
		t.Errorf("steady 100/day gives an average of %v", avg)
	}
	// Then nothing for a week halves it.
	if got := decayedAverage(avg, at, at.Add(7*24*time.Hour)); got < avg/2-0.01 || got > avg/2+0.01 {
		t.Errorf("a week later %v, want %v", got, avg/2)
	}
}
