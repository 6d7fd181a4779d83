package accounting_test

import (
	"context"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cobble-am/cobble/accounting"
)

// The counter columns of the ledger and of host_projects are exactly those
// UsageFields names, all bigint. The ledger's report count and times
// (where a day's number came from) are not counters.
func TestUsageFieldsMatchTheDatabase(t *testing.T) {
	t.Parallel()
	_, pool := storeAndPool(t)
	rows, err := pool.Query(context.Background(), `
		SELECT table_name || '.' || column_name, data_type FROM information_schema.columns
		WHERE table_schema = current_schema() AND (
			table_name = 'ledger' AND column_name NOT IN ('host_id', 'project_id', 'day', 'user_id',
				'reports', 'first_report_at', 'last_report_at') OR
			table_name = 'host_projects' AND (column_name LIKE 'last\_%' OR column_name LIKE 'total\_%'))`)
	if err != nil {
		t.Fatal(err)
	}
	var inDatabase []string
	for rows.Next() {
		var column, typ string
		if err := rows.Scan(&column, &typ); err != nil {
			t.Fatal(err)
		}
		if typ != "bigint" {
			t.Errorf("%s is %s, not bigint", column, typ)
		}
		inDatabase = append(inDatabase, column)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	var named []string
	for _, f := range accounting.UsageFields {
		named = append(named, "ledger."+f.Column, "ledger."+f.Clamped, "host_projects."+f.Last, "host_projects."+f.Total)
	}
	slices.Sort(inDatabase)
	slices.Sort(named)
	if diff := cmp.Diff(inDatabase, named); diff != "" {
		t.Errorf("counter columns (-database +UsageFields):\n%s", diff)
	}
}

// Usage's amounts (Values), Counters' names and units, and UsageFields
// are in one order.
func TestUsageFieldsOrder(t *testing.T) {
	u := accounting.Usage{CPUEC: 1_000_000, CPUTime: 2_000_000, GPUEC: 3_000_000, GPUTime: 4_000_000,
		JobsSuccess: 5, JobsError: 6}
	js, err := json.Marshal(accounting.Counters{CPUEC: 1, CPUTime: 2, GPUEC: 3, GPUTime: 4, JobsSuccess: 5, JobsError: 6})
	if err != nil {
		t.Fatal(err)
	}
	var byName map[string]float64
	if err := json.Unmarshal(js, &byName); err != nil {
		t.Fatal(err)
	}
	values := u.Values()
	for i, f := range accounting.UsageFields {
		if got, want := f.Unit(values[i]), byName[f.Name]; got != want || want == 0 {
			t.Errorf("UsageFields[%d] %s: %v in Usage, %v in Counters", i, f.Name, got, want)
		}
	}
	c := reflect.TypeFor[accounting.Counters]()
	if c.NumField() != len(accounting.UsageFields) {
		t.Fatalf("Counters has %d fields, UsageFields %d", c.NumField(), len(accounting.UsageFields))
	}
	for i, f := range accounting.UsageFields {
		tag := c.Field(i).Tag
		if name, _, _ := strings.Cut(tag.Get("json"), ","); name != f.Name || tag.Get("db") != f.Name {
			t.Errorf("Counters.%s is named %q in JSON and %q in columns, want %s", c.Field(i).Name, name, tag.Get("db"), f.Name)
		}
	}
}
