package reconcile

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkMeasureFairness measures a window of 50,000 hosts of 5,000
// volunteers on 20 projects, each host on 3 of them: about the 50 M-row
// history's size.
func BenchmarkMeasureFairness(b *testing.B) {
	rng := rand.New(rand.NewPCG(5, 6))
	var projects []FairProject
	for id := range int64(20) {
		projects = append(projects, FairProject{ID: id + 1, Name: "P"})
	}
	var hosts []CreditHost
	for h := range int64(50_000) {
		for k := range int64(3) {
			hosts = append(hosts, CreditHost{ProjectID: 1 + (h+7*k)%20, HostID: h, UserID: h / 10,
				Estimated: 100 + rng.Float64()*1000, Granted: 100 + rng.Float64()*1000, CPUHours: 10})
		}
	}
	b.ResetTimer()
	for b.Loop() {
		measureFairness(30, projects, hosts)
	}
}
