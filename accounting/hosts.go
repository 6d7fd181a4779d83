package accounting

import "time"

// HostReport is what a client says about its computer in an RPC.
type HostReport struct {
	CPID           string // the client's host_cpid
	PreviousCPID   string
	DomainName     string
	ClientVersion  string
	Platforms      []string // primary platform first
	OSName         string
	OSVersion      string
	PVendor        string
	PModel         string
	NCPUs          int
	PFPOps         float64 // per core, FLOPS
	MNBytes        float64
	TimezoneOffset int // seconds east of UTC
	Coprocs        []Coproc
}

// Coproc is one kind of GPU in a host.
type Coproc struct {
	Type      string  `json:"type"` // a resource name: NVIDIA, ATI, intel_gpu, apple_gpu, ...
	Count     int     `json:"count"`
	PeakFLOPS float64 `json:"peak_flops"` // per device
}

// Resources returns CPU plus the GPU kinds the host has at least one of.
func (h HostReport) Resources() []string {
	out := []string{ResourceCPU}
	for _, c := range h.Coprocs {
		if c.Count > 0 && c.Type != "" {
			out = append(out, c.Type)
		}
	}
	return out
}

// Host is a computer of a volunteer as Cobble knows it.
type Host struct {
	ID        int64
	UserID    int64
	Token     string // carried in the reply's <opaque>
	CreatedAt time.Time
	LastRPCAt *time.Time
	// LocationID is the host's location; nil at Default.
	LocationID *int64
	budget     budget     // what it may still be credited
	pause      pauseState // winding down or paused (computers_pause_types.go)
}
