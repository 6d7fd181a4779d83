package views

import (
	"bytes"
	"context"
	"encoding/xml"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cobble-am/cobble/internal/locale"
)

// en is the language the chart tests read: the reference.
var en = locale.Default().Lookup(locale.Reference)

// node is an element of a rendered SVG, parsed with encoding/xml.
type node struct {
	name     string
	attr     map[string]string
	children []*node
	text     string
}

// all returns the elements under n (n included) named name whose class
// attribute holds every one of classes.
func (n *node) all(name string, classes ...string) []*node {
	var out []*node
	var walk func(*node)
	walk = func(m *node) {
		if m.name == name && hasClasses(m.attr["class"], classes) {
			out = append(out, m)
		}
		for _, c := range m.children {
			walk(c)
		}
	}
	walk(n)
	return out
}

func hasClasses(attr string, want []string) bool {
	have := strings.Fields(attr)
	for _, w := range want {
		found := false
		for _, h := range have {
			found = found || h == w
		}
		if !found {
			return false
		}
	}
	return true
}

// texts returns the text of each <text> element under n.
func (n *node) texts() []string {
	var out []string
	for _, t := range n.all("text") {
		out = append(out, t.text)
	}
	return out
}

// renderChart renders c and parses it strictly as XML.
func renderChart(t *testing.T, c Chart) (*node, string) {
	t.Helper()
	var buf bytes.Buffer
	if err := DailyChart(c).Render(context.Background(), &buf); err != nil {
		t.Fatalf("render: %v", err)
	}
	root, err := parseXML(buf.String())
	if err != nil {
		t.Fatalf("the chart is not well-formed XML: %v\n%s", err, buf.String())
	}
	return root, buf.String()
}

func parseXML(s string) (*node, error) {
	dec := xml.NewDecoder(strings.NewReader(s))
	dec.Strict = true
	var stack []*node
	var root *node
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return root, nil
		}
		if err != nil {
			return nil, err
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			n := &node{name: tok.Name.Local, attr: map[string]string{}}
			for _, a := range tok.Attr {
				n.attr[a.Name.Local] = a.Value
			}
			if len(stack) > 0 {
				top := stack[len(stack)-1]
				top.children = append(top.children, n)
			} else {
				root = n
			}
			stack = append(stack, n)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			if len(stack) > 0 {
				stack[len(stack)-1].text += string(tok)
			}
		}
	}
}

func days(n int, first time.Time) []time.Time {
	out := make([]time.Time, n)
	for i := range out {
		out[i] = first.AddDate(0, 0, i)
	}
	return out
}

func repeat(v float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = v
	}
	return out
}

var jan1 = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

// coordinate matches a number with at most two decimals.
var coordinate = regexp.MustCompile(`^-?\d+(\.\d{1,2})?$`)

// TestDailyChartEdgeCases renders charts that could break the SVG and
// checks that each is well-formed XML, deterministic, and has only finite,
// compact numbers with bars inside the picture.
func TestDailyChartEdgeCases(t *testing.T) {
	bad := []float64{math.NaN(), math.Inf(1), math.Inf(-1), -5, 1e300, 3, math.SmallestNonzeroFloat64}
	tests := []struct {
		name  string
		chart Chart
		bars  int
	}{
		{"no days", Chart{Title: "Empty", Series: []Series{{Name: "CPU", Class: "cpu"}}}, 0},
		{"no series", Chart{Days: days(10, jan1)}, 0},
		{"all zeros", Chart{Days: days(10, jan1), Series: []Series{{Name: "CPU", Values: repeat(0, 10)}, {Name: "Granted", Values: repeat(0, 10), Kind: Line}}}, 0},
		{"one day", Chart{Days: days(1, jan1), Series: []Series{{Name: "CPU", Values: []float64{42}}, {Name: "Granted", Values: []float64{40}, Kind: Line}}}, 1},
		{"unusable values", Chart{Days: days(len(bad), jan1), Series: []Series{{Name: "CPU", Values: bad}, {Name: "GPU", Values: bad}, {Name: "Line", Values: bad, Kind: Line}}}, 6},
		{"values missing and extra", Chart{Days: days(5, jan1), Series: []Series{{Name: "short", Values: []float64{1, 2}}, {Name: "long", Values: repeat(1, 50)}}}, 7},
		{"420 days", Chart{Days: days(420, jan1), Series: []Series{{Name: "CPU", Values: repeat(1234.5, 420)}, {Name: "Granted", Values: repeat(1000, 420), Kind: Line}}}, 420},
		{"tiny values", Chart{Days: days(3, jan1), Series: []Series{{Name: "CPU", Values: []float64{0.001, 0.002, 0.0005}}}}, 3},
		{"huge values", Chart{Days: days(3, jan1), Series: []Series{{Values: []float64{2e15, 1e9, 5e14}}, {Values: []float64{2e15, 0, 1}}}}, 5},
		{"markup in names", Chart{Title: `<script>"&'`, YLabel: "a < b", Days: days(2, jan1), Series: []Series{{Name: "</text>&amp;", Class: `x" onload="y`, Values: []float64{1, 2}}}}, 2},
		{"absurd size", Chart{Width: -5, Height: 1 << 30, Days: days(3, jan1), Series: []Series{{Values: []float64{1, 2, 3}}}}, 3},
		{"small size, many series", Chart{Width: 100, Height: 50, Days: days(3, jan1), Series: manySeries(12, 3)}, 36},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root, text := renderChart(t, tt.chart)
			if root.name != "svg" || root.attr["role"] != "img" || root.attr["aria-label"] == "" {
				t.Errorf("root <%s role=%q aria-label=%q>, want an svg image with a label", root.name, root.attr["role"], root.attr["aria-label"])
			}
			if len(root.all("title")) == 0 || len(root.all("desc")) != 1 {
				t.Error("no <title> or <desc>")
			}
			if got := len(root.bars()); got != tt.bars {
				t.Errorf("%d bars, want %d", got, tt.bars)
			}
			checkNumbers(t, root)
			if _, again := renderChart(t, tt.chart); again != text {
				t.Error("rendering the same chart twice gives different output")
			}
			if strings.Contains(text, "<script>") || strings.Contains(text, "onload") && !strings.Contains(text, "xonloady") {
				t.Error("markup from the chart's data is not escaped")
			}
		})
	}
}

func manySeries(n, days int) []Series {
	out := make([]Series, n)
	for i := range out {
		out[i] = Series{Name: "Project number " + strconv.Itoa(i), Class: "p" + strconv.Itoa(i%8), Values: repeat(float64(i+1), days)}
	}
	return out
}

// checkNumbers checks every geometric attribute under root: finite, at most
// two decimals, sizes not negative, bars within the viewBox.
func checkNumbers(t *testing.T, root *node) {
	t.Helper()
	w, _ := strconv.ParseFloat(root.attr["width"], 64)
	h, _ := strconv.ParseFloat(root.attr["height"], 64)
	if root.attr["viewBox"] != "0 0 "+root.attr["width"]+" "+root.attr["height"] || w <= 0 || h <= 0 {
		t.Errorf("size %q×%q, viewBox %q", root.attr["width"], root.attr["height"], root.attr["viewBox"])
	}
	var walk func(n *node)
	walk = func(n *node) {
		for _, name := range []string{"x", "y", "width", "height", "x1", "y1", "x2", "y2", "cx", "cy", "r"} {
			v, ok := n.attr[name]
			if !ok {
				continue
			}
			if !coordinate.MatchString(v) {
				t.Errorf("<%s %s=%q>: not a compact number", n.name, name, v)
			}
			if f, _ := strconv.ParseFloat(v, 64); (name == "width" || name == "height") && f < 0 {
				t.Errorf("<%s %s=%q>: negative size", n.name, name, v)
			}
		}
		for _, p := range strings.Fields(n.attr["points"]) {
			x, y, _ := strings.Cut(p, ",")
			if !coordinate.MatchString(x) || !coordinate.MatchString(y) {
				t.Errorf("polyline point %q: not compact numbers", p)
			}
		}
		for _, c := range n.children {
			walk(c)
		}
	}
	walk(root)
	for _, b := range root.bars() {
		x, _ := strconv.ParseFloat(b.attr["x"], 64)
		y, _ := strconv.ParseFloat(b.attr["y"], 64)
		bw, _ := strconv.ParseFloat(b.attr["width"], 64)
		bh, _ := strconv.ParseFloat(b.attr["height"], 64)
		if x < 0 || y < 0 || x+bw > w+0.01 || y+bh > h+0.01 {
			t.Errorf("bar %v×%v at (%v,%v) is outside the %v×%v picture", bw, bh, x, y, w, h)
		}
	}
}

// TestDailyChart30Days checks the structure of a typical chart: estimated
// CPU and GPU bars with the granted credit as a line.
func TestDailyChart30Days(t *testing.T) {
	cpu, gpu, granted := make([]float64, 30), make([]float64, 30), make([]float64, 30)
	for i := range 30 {
		cpu[i] = float64(1000 + 100*i) // up to 3,900
		if i%3 != 0 {
			gpu[i] = 2000 // 20 days with GPU work
		}
		granted[i] = float64(900 + 100*i)
	}
	c := Chart{
		Title:  "Estimated and granted credit per day",
		Days:   days(30, time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)),
		YLabel: "credit per day",
		Series: []Series{
			{Name: "CPU (estimated)", Values: cpu, Class: "cpu"},
			{Name: "GPU (estimated)", Values: gpu, Class: "gpu"},
			{Name: "Granted", Values: granted, Kind: Line, Class: "granted"},
		},
	}
	root, _ := renderChart(t, c)
	svg := root.all("svg")[0]

	if got, want := len(svg.bars()), 30+20; got != want {
		t.Errorf("%d bars, want %d", got, want)
	}
	for class, want := range map[string]int{"cpu": 30, "gpu": 20} {
		if g := svg.all("g", "bars", class); len(g) != 1 || len(g[0].all("rect")) != want {
			t.Errorf("series %s: want one group of %d bars", class, want)
		}
	}
	lines := svg.all("g", "line", "granted")
	if len(lines) != 1 {
		t.Fatalf("%d granted lines, want 1", len(lines))
	}
	if pts := strings.Fields(lines[0].all("polyline")[0].attr["points"]); len(pts) != 30 {
		t.Errorf("line has %d points, want 30", len(pts))
	}
	if dots := lines[0].all("circle", "dot"); len(dots) != 30 {
		t.Errorf("line has %d dots, want 30", len(dots))
	}
	if got := len(svg.all("rect", "hit")); got != 30 {
		t.Errorf("%d day columns, want 30", got)
	}

	legend := svg.all("g", "legend")[0]
	if diff := cmp.Diff([]string{"CPU (estimated)", "GPU (estimated)", "Granted"}, legend.texts()); diff != "" {
		t.Errorf("legend (-want +got):\n%s", diff)
	}
	if n := len(legend.all("line", "swatch-line")); n != 1 {
		t.Errorf("%d line swatches, want 1", n)
	}
	// The highest stack is 2,900 + 2,000 = 5,900 (day 29 has GPU work);
	// four or five ticks in 1-2-5 steps reach 6,000.
	if diff := cmp.Diff([]string{"0", "2k", "4k", "6k"}, svg.all("g", "y-ticks")[0].texts()); diff != "" {
		t.Errorf("y ticks (-want +got):\n%s", diff)
	}
	// 30 days fit 14 labels: every 7th day, counting back from the last.
	if diff := cmp.Diff([]string{"2 Mar", "9 Mar", "16 Mar", "23 Mar", "30 Mar"}, svg.all("g", "x-ticks")[0].texts()); diff != "" {
		t.Errorf("x labels (-want +got):\n%s", diff)
	}
	if got := svg.all("g", "y-label")[0].texts(); len(got) != 1 || got[0] != "credit per day" {
		t.Errorf("y label %q", got)
	}
	titles := svg.all("title")
	if titles[0].text != c.Title || svg.attr["aria-label"] != c.Title {
		t.Errorf("title %q, aria-label %q", titles[0].text, svg.attr["aria-label"])
	}
	if want := "Sat 1 Mar 2025 — CPU (estimated): 1,000; GPU (estimated): 0; Granted: 900"; titles[1].text != want {
		t.Errorf("first day's tooltip %q, want %q", titles[1].text, want)
	}
	desc := svg.all("desc")[0].text
	for _, want := range []string{"30 days, 1 Mar 2025 to 30 Mar 2025", "CPU (estimated) (bars): total 73,500, highest 3,900 on 30 Mar 2025", "Granted (line): latest 3,800, highest 3,800 on 30 Mar 2025."} {
		if !strings.Contains(desc, want) {
			t.Errorf("desc %q lacks %q", desc, want)
		}
	}
}

func TestLegendWrapsAndShortens(t *testing.T) {
	series := manySeries(12, 3)
	series[5].Name = strings.Repeat("A very long project name ", 20)
	root, _ := renderChart(t, Chart{Width: 400, Days: days(3, jan1), Series: series})
	rows := map[string]bool{}
	for _, text := range root.all("g", "legend")[0].all("text") {
		rows[text.attr["y"]] = true
		x, _ := strconv.ParseFloat(text.attr["x"], 64)
		if end := x + textWidth(text.text, legendFont); end > 400 {
			t.Errorf("legend entry %q ends at %.0f, beyond the chart's 400", text.text, end)
		}
	}
	if len(rows) < 3 {
		t.Errorf("12 entries on a 400-wide chart fill %d rows, want at least 3", len(rows))
	}
	if texts := root.all("g", "legend")[0].texts(); !strings.HasSuffix(texts[5], "…") {
		t.Errorf("a long name is not shortened: %q", texts[5])
	}
}

func TestYTicks(t *testing.T) {
	tests := []struct {
		top    float64
		want   int
		labels []string
	}{
		{0, 2, []string{"0", "0.5", "1"}}, // nothing to show: the ticks of 1
		{1, 5, []string{"0", "0.2", "0.4", "0.6", "0.8", "1"}},
		{7, 4, []string{"0", "2", "4", "6", "8"}},
		{95, 5, []string{"0", "20", "40", "60", "80", "100"}},
		{1234, 4, []string{"0", "500", "1k", "1.5k"}},
		{5900, 4, []string{"0", "2k", "4k", "6k"}},
		{48000, 5, []string{"0", "10k", "20k", "30k", "40k", "50k"}},
		{2.5e6, 5, []string{"0", "500k", "1M", "1.5M", "2M", "2.5M"}},
		{8.1e9, 4, []string{"0", "5G", "10G"}},
		{0.003, 3, []string{"0", "0.001", "0.002", "0.003"}},
		{MaxChartValue * 3, 3, []string{"0", "1P", "2P", "3P"}},
	}
	for _, tt := range tests {
		ticks, step := yTicks(tt.top, tt.want)
		var got []string
		for _, v := range ticks {
			got = append(got, tickLabel(en, v, step))
		}
		if diff := cmp.Diff(tt.labels, got); diff != "" {
			t.Errorf("yTicks(%v, %d) (-want +got):\n%s", tt.top, tt.want, diff)
		}
		if last := ticks[len(ticks)-1]; last < tt.top {
			t.Errorf("yTicks(%v, %d) ends at %v, below the top", tt.top, tt.want, last)
		}
	}
}

func TestXLabelDays(t *testing.T) {
	tests := []struct {
		name  string
		days  []time.Time
		limit int
		want  []string
	}{
		{"none", nil, 10, nil},
		{"one day", days(1, jan1), 10, []string{"1 Jan"}},
		{"every day", days(5, jan1), 10, []string{"1 Jan", "2 Jan", "3 Jan", "4 Jan", "5 Jan"}},
		{"every 2nd day, ending today", days(6, jan1), 3, []string{"2 Jan", "4 Jan", "6 Jan"}},
		{"weekly", days(30, jan1), 5, []string{"2 Jan", "9 Jan", "16 Jan", "23 Jan", "30 Jan"}},
		{"fortnightly", days(60, jan1), 5, []string{"4 Jan", "18 Jan", "1 Feb", "15 Feb", "1 Mar"}},
		{"months, the year in January", days(420, time.Date(2024, 11, 15, 0, 0, 0, 0, time.UTC)), 14,
			[]string{"Dec", "2025", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec", "2026"}},
		{"quarters", days(800, jan1), 10, []string{"2025", "Apr", "Jul", "Oct", "2026", "Apr", "Jul", "Oct", "2027"}},
		{"years", days(3700, jan1), 11, []string{"2025", "2026", "2027", "2028", "2029", "2030", "2031", "2032", "2033", "2034", "2035"}},
		{"every 20 years", days(40000, jan1), 5, []string{"2040", "2060", "2080", "2100", "2120"}},
		{"every 50 years", days(40000, jan1), 4, []string{"2050", "2100"}},
		{"a limit below one", days(3, jan1), 0, []string{"3 Jan"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			idx, got := xLabelDays(en, tt.days, tt.limit)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("labels (-want +got):\n%s", diff)
			}
			if len(idx) != len(got) {
				t.Errorf("%d indices for %d labels", len(idx), len(got))
			}
		})
	}
}

func TestFormatting(t *testing.T) {
	tests := []struct {
		got, want string
	}{
		{num(12.345), "12.35"},
		{num(-0.001), "0"},
		{num(0.1 + 0.2), "0.3"},
		{num(720), "720"},
		{amount(en, 0), "0"},
		{amount(en, 999.999), "1,000"},
		{amount(en, 1234567.891), "1,234,567.89"},
		{amount(en, MaxChartValue), "1,000,000,000,000,000"},
		{tickLabel(en, 1500, 500), "1.5k"},
		{tickLabel(en, 0, 0.05), "0"},
		{tickLabel(en, 0.15, 0.05), "0.15"},
		{tickLabel(locale.Default().Get("de"), 1500, 500), "1,5 Tsd."},
		{tickLabel(locale.Default().Get("de"), 20e6, 10e6), "20 Mio."},
		{tickLabel(en, 3e9, 1e9), "3G"},
		{cssClass(`p1 "x" <y>`), "p1xy"},
		{cssClass("est-2_b"), "est-2_b"},
	}
	for i, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("case %d: got %q, want %q", i, tt.got, tt.want)
		}
	}
}

// bars returns the bars under n: the rectangles of its g.bars groups.
func (n *node) bars() []*node {
	var out []*node
	for _, g := range n.all("g", "bars") {
		out = append(out, g.all("rect")...)
	}
	return out
}

// A Partial line (confirmed credit) starts at its first day above 0: the
// days before any history get neither line nor dots at 0 (issue 45, item
// 22). A line of zeros alone is still drawn.
func TestPartialLineStartsWithHistory(t *testing.T) {
	days := make([]time.Time, 10)
	for i := range days {
		days[i] = time.Date(2026, 12, 1+i, 0, 0, 0, 0, time.UTC)
	}
	for _, c := range []struct {
		values []float64
		points int
	}{
		{[]float64{0, 0, 0, 0, 5, 6, 0, 7}, 4},
		{[]float64{0, 0, 0}, 3},
	} {
		root, _ := renderChart(t, Chart{Title: "t", Days: days, Series: []Series{
			{Name: "Estimated", Values: []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, Kind: Bars, Class: "est"},
			{Name: "Confirmed", Values: c.values, Kind: Line, Partial: true, Class: "granted"}}})
		line := root.all("g", "line")
		if len(line) != 1 {
			t.Fatalf("%v: %d lines", c.values, len(line))
		}
		poly := line[0].all("polyline")[0].attr["points"]
		if n := len(strings.Fields(poly)); n != c.points || len(line[0].all("circle")) != c.points {
			t.Errorf("%v: %d points and %d dots, want %d", c.values, n, len(line[0].all("circle")), c.points)
		}
	}
}
