package exporttest

import (
	"fmt"
	"iter"
	"math/rand/v2"
	"strings"
)

// SynthHosts returns n realistic, varied hosts with increasing ids, the
// same for the same seed, for [WriteHostExport]. About one host in ten is
// hidden, one in three has a GPU, half use the misc form, and some CPU
// names are not ASCII. It generates them as they are consumed, so that n
// may be in the millions. Float fields have at most six decimals, so that
// they read back exactly.
func SynthHosts(n int, seed uint64) iter.Seq[Host] {
	return func(yield func(Host) bool) {
		rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
		id := int64(0)
		for range n {
			id += 1 + rng.Int64N(3)
			if !yield(synthHost(rng, id)) {
				return
			}
		}
	}
}

// synthHost returns a random host with the given id.
func synthHost(rng *rand.Rand, id int64) Host {
	created := 1_100_000_000 + rng.Int64N(600_000_000)
	h := Host{
		ID:           id,
		UserID:       1 + rng.Int64N(250_000),
		Hidden:       rng.IntN(10) == 0,
		TotalCredit:  micro(rng.Int64N(500_000_000_000_000)),
		ExpavgTime:   micro(1_600_000_000_000_000 + rng.Int64N(100_000_000_000_000)),
		HostCPID:     fmt.Sprintf("%016x%016x", rng.Uint64(), rng.Uint64()),
		PModel:       pModels[rng.IntN(len(pModels))],
		OSName:       osNames[rng.IntN(len(osNames))],
		NCPUs:        []int{1, 2, 4, 4, 8, 8, 12, 16, 24, 32, 64, 128}[rng.IntN(12)],
		PFPOps:       micro(1_000_000_000_000_000 + rng.Int64N(6_000_000_000_000_000)),
		CreateTime:   created,
		RPCTime:      created + rng.Int64N(100_000_000),
		MiscForm:     rng.IntN(2) == 0,
		ExpavgCredit: 0,
	}
	if rng.IntN(5) != 0 {
		h.ExpavgCredit = micro(rng.Int64N(100_000_000_000))
	}
	if rng.IntN(3) == 0 {
		h.Coprocs = gpus[rng.IntN(len(gpus))]
	}
	return h
}

// micro returns n millionths, the float nearest to a number printed with
// six decimals.
func micro(n int64) float64 {
	return float64(n) / 1e6
}

// Values for synthetic hosts.
var (
	pModels = []string{
		"Intel(R) Core(TM) i7-8700 CPU @ 3.20GHz [Family 6 Model 158 Stepping 10]",
		"Intel(R) Core(TM) i5-4590 CPU @ 3.30GHz [x86 Family 6 Model 60 Stepping 3]",
		"Intel(R) Xeon(R) CPU E5-2680 v4 @ 2.40GHz [Family 6 Model 79 Stepping 1]",
		"AMD Ryzen 9 5950X 16-Core Processor [Family 25 Model 33 Stepping 0]",
		"AMD Ryzen 7 3700X 8-Core Processor [Family 23 Model 113 Stepping 0]",
		"AMD EPYC 7763 64-Core Processor [Family 25 Model 1 Stepping 1]",
		"Apple M1 Pro [x86 Family 6 Model 44 Stepping 0]",
		"ARMv8 Processor rev 4 (v8l) [Impl 0x41 Arch 8 Variant 0x0 Part 0xd03 Rev 4]",
		"Pentium® Dual-Core CPU E5700 @ 3.00GHz [Family 6 Model 23 Stepping 10]",
		"Qualcomm® Kryo™ 585 [Impl 0x51 Arch 8]",
		"Процессор Intel® Core™ i3 [Family 6 Model 42 Stepping 7]",
		"Intel(R) Core(TM) i9-13900K & friends [Family 6 Model 183 Stepping 1]",
	}
	osNames = []string{
		"Microsoft Windows 10", "Microsoft Windows 11", "Linux Ubuntu", "Linux Debian",
		"Linux Fedora", "Darwin", "Android", "FreeBSD", "Linux Arch Linux",
	}
	gpus = []string{
		"BOINC|7.20.5[CUDA|NVIDIA GeForce RTX 3080|1|10240MB|53035|200]",
		"BOINC|7.22.2[CUDA|NVIDIA GeForce GTX 1060 6GB|1|6144MB|53123|102][CAL|AMD Radeon RX 580|1|8192MB||200]",
		"BOINC|7.16.11[INTEL|Intel(R) UHD Graphics 630|1|6383MB||300]",
	}
	clientVersions = []string{"7.20.5", "7.22.2", "7.24.1", "8.0.4", "7.16.11", "7.18.1"}
)

// vendorOf returns the p_vendor that goes with a CPU model.
func vendorOf(model string) string {
	switch {
	case strings.Contains(model, "Intel"):
		return "GenuineIntel"
	case strings.Contains(model, "AMD"):
		return "AuthenticAMD"
	case strings.HasPrefix(model, "Apple"):
		return "Apple"
	}
	return "ARM"
}

// osVersionOf returns an os_version that goes with an OS name; some
// contain an ampersand.
func osVersionOf(os string, id int64) string {
	switch {
	case strings.HasPrefix(os, "Microsoft"):
		return "Professional x64 Edition, (10.00.19045.00)"
	case os == "Darwin":
		return "22.6.0"
	case id%7 == 0:
		return "Ubuntu 22.04.3 LTS [6.5.0-14-generic|libc 2.35 (Ubuntu GLIBC 2.35-0ubuntu3.4)] & WSL2"
	}
	return "Debian GNU/Linux 12 (bookworm) [6.1.0-13-amd64|libc 2.36]"
}
