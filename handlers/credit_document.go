package handlers

import (
	"strconv"

	"github.com/cobble-am/cobble/accounting/reconcile"
)

// creditJSON is /credit.json (docs/CREDIT.md): field names are a contract.
type creditJSON struct {
	WindowDays    int                 `json:"window_days"`
	ComputedAt    string              `json:"computed_at"`
	MinHosts      int                 `json:"min_hosts"`
	MinVolunteers int                 `json:"min_volunteers"`
	Hosts         int                 `json:"hosts"`
	Volunteers    int                 `json:"volunteers"`
	Projects      []creditProjectJSON `json:"projects"`
	Pairs         []creditPairJSON    `json:"pairs"`
}

// creditProjectJSON is one project; its figures are null below the
// threshold (enough_data false).
type creditProjectJSON struct {
	URL               string      `json:"url"`
	Name              string      `json:"name"`
	Hosts             int         `json:"hosts"`
	Volunteers        int         `json:"volunteers"`
	Exports           int         `json:"exports"`
	EnoughData        bool        `json:"enough_data"`
	RatioMedian       *float64    `json:"ratio_median"`
	RatioCI95         *[2]float64 `json:"ratio_ci95"`
	RatioIQR          *[2]float64 `json:"ratio_iqr"`
	Position          *float64    `json:"position"`
	ShareAbove        *float64    `json:"share_above_1_1"`
	GPUHosts          *int        `json:"gpu_hosts"`
	CPUHosts          *int        `json:"cpu_hosts"`
	GPUvsCPU          *float64    `json:"gpu_vs_cpu"`
	GrantedPerCPUHour *float64    `json:"granted_per_cpu_hour"`
	GrantedPerGPUHour *float64    `json:"granted_per_gpu_hour"`
}

// creditPairJSON is one ordered pair: the median over shared hosts of
// (ratio on A ÷ ratio on B), null below the threshold.
type creditPairJSON struct {
	A           string      `json:"a"`
	B           string      `json:"b"`
	Hosts       int         `json:"hosts"`
	Volunteers  int         `json:"volunteers"`
	EnoughData  bool        `json:"enough_data"`
	RatioMedian *float64    `json:"ratio_median"`
	RatioCI95   *[2]float64 `json:"ratio_ci95"`
}

// creditDocument is f as /credit.json writes it.
func creditDocument(f reconcile.Fairness) creditJSON {
	doc := creditJSON{WindowDays: f.WindowDays, ComputedAt: creditTime(f.ComputedAt), MinHosts: reconcile.MinFairHosts,
		MinVolunteers: reconcile.MinFairVolunteers, Hosts: f.Hosts, Volunteers: f.Volunteers,
		Projects: []creditProjectJSON{}, Pairs: []creditPairJSON{}}
	for _, p := range f.Projects {
		j := creditProjectJSON{URL: p.URL, Name: p.Name, Hosts: p.Hosts, Volunteers: p.Volunteers,
			Exports: p.Exports, EnoughData: p.Enough}
		if p.Enough {
			j.RatioMedian, j.Position, j.ShareAbove = &p.Median, &p.Position, &p.ShareAbove
			j.RatioCI95, j.RatioIQR = &[2]float64{p.CI95.Low, p.CI95.High}, &[2]float64{p.IQR.Low, p.IQR.High}
			j.GPUHosts, j.CPUHosts = &p.GPUHosts, &p.CPUHosts
			j.GPUvsCPU, j.GrantedPerCPUHour, j.GrantedPerGPUHour = p.GPUvsCPU, p.PerCPUHour, p.PerGPUHour
		}
		doc.Projects = append(doc.Projects, j)
	}
	for _, p := range f.Pairs {
		j := creditPairJSON{A: p.AURL, B: p.BURL, Hosts: p.Hosts, Volunteers: p.Volunteers, EnoughData: p.Enough}
		if p.Enough {
			j.RatioMedian, j.RatioCI95 = &p.Median, &[2]float64{p.CI95.Low, p.CI95.High}
		}
		doc.Pairs = append(doc.Pairs, j)
	}
	return doc
}

// creditCSVColumns are /credit.csv's columns: kind is "project" or
// "pair"; a project's row leaves b_url and b_name empty.
var creditCSVColumns = []string{"window_days", "kind", "a_url", "a_name", "b_url", "b_name", "hosts", "volunteers",
	"exports", "enough_data", "ratio_median", "ratio_ci95_low", "ratio_ci95_high", "ratio_iqr_low", "ratio_iqr_high",
	"position", "share_above_1_1", "gpu_vs_cpu", "granted_per_cpu_hour", "granted_per_gpu_hour"}

// projectCSV is a project's CSV row; its figures empty below the
// threshold.
func projectCSV(days int, p reconcile.ProjectFairness) []string {
	row := []string{strconv.Itoa(days), "project", spreadsheetText(p.URL), spreadsheetText(p.Name), "", "",
		strconv.Itoa(p.Hosts), strconv.Itoa(p.Volunteers), strconv.Itoa(p.Exports), strconv.FormatBool(p.Enough)}
	if !p.Enough {
		return append(row, make([]string, 10)...)
	}
	return append(row, csvFloat(&p.Median), csvFloat(&p.CI95.Low), csvFloat(&p.CI95.High), csvFloat(&p.IQR.Low),
		csvFloat(&p.IQR.High), csvFloat(&p.Position), csvFloat(&p.ShareAbove), csvFloat(p.GPUvsCPU),
		csvFloat(p.PerCPUHour), csvFloat(p.PerGPUHour))
}

// pairCSV is a pair's CSV row.
func pairCSV(days int, p reconcile.PairFairness) []string {
	row := []string{strconv.Itoa(days), "pair", spreadsheetText(p.AURL), spreadsheetText(p.AName),
		spreadsheetText(p.BURL), spreadsheetText(p.BName), strconv.Itoa(p.Hosts), strconv.Itoa(p.Volunteers), "",
		strconv.FormatBool(p.Enough)}
	if !p.Enough {
		return append(row, make([]string, 10)...)
	}
	return append(row, csvFloat(&p.Median), csvFloat(&p.CI95.Low), csvFloat(&p.CI95.High), "", "", "", "", "", "", "")
}

// csvFloat is *v in the shortest form that reads back exactly; "" for nil.
func csvFloat(v *float64) string {
	if v == nil {
		return ""
	}
	return strconv.FormatFloat(*v, 'g', -1, 64)
}
