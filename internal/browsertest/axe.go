package browsertest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/chromedp"
)

// AxeVersion is the axe-core that scripts/deps.sh installs (npm's
// axe-core, into .cache/axe-core of the checkout).
const AxeVersion = "4.14.1"

// WCAG21AA are the axe-core tags of the rules of WCAG 2.1 levels A and AA.
var WCAG21AA = []string{"wcag2a", "wcag2aa", "wcag21a", "wcag21aa"}

// AxeViolation is one rule a page breaks, with the elements that break it.
type AxeViolation struct {
	ID     string   `json:"id"`
	Impact string   `json:"impact"`
	Help   string   `json:"help"`
	Nodes  []string `json:"nodes"` // a CSS selector of each element, and what to fix
}

func (v AxeViolation) String() string {
	return fmt.Sprintf("%s (%s): %s\n\t%s", v.ID, v.Impact, v.Help, strings.Join(v.Nodes, "\n\t"))
}

var axeSource struct {
	once sync.Once
	js   string
	err  error
}

// AxePath returns the path of axe.min.js: $COBBLE_AXE_CORE when set, else
// .cache/axe-core/node_modules/axe-core/axe.min.js in the first folder
// upwards of the working directory that holds go.mod.
func AxePath() (string, error) {
	if p := os.Getenv("COBBLE_AXE_CORE"); p != "" {
		return p, nil
	}
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, ".cache", "axe-core", "node_modules", "axe-core", "axe.min.js"), nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = parent
	}
}

// requireAxe returns axe-core's source, or skips t when it is not installed
// (fails it when the environment has CI=true).
func requireAxe(t testing.TB) string {
	t.Helper()
	axeSource.once.Do(func() {
		var p string
		if p, axeSource.err = AxePath(); axeSource.err != nil {
			return
		}
		var b []byte
		b, axeSource.err = os.ReadFile(p)
		axeSource.js = string(b)
	})
	if axeSource.err != nil {
		msg := "browsertest: axe-core " + AxeVersion + " is needed for this test (scripts/deps.sh axe-core): " +
			axeSource.err.Error()
		if os.Getenv("CI") == "true" {
			t.Fatal(msg + " [CI=true, so this is a failure, not a skip]")
		}
		t.Skip(msg)
	}
	return axeSource.js
}

// Axe runs axe-core on the page in the tab, with the rules of the given
// tags (e.g. WCAG21AA), and returns the rules it breaks. It skips t when
// axe-core is not installed, and fails t if axe-core cannot run.
func (b *Browser) Axe(t testing.TB, tags ...string) []AxeViolation {
	t.Helper()
	src := requireAxe(t)
	quoted := make([]string, len(tags))
	for i, tag := range tags {
		quoted[i] = jsString(tag)
	}
	run := `(async () => {
		const r = await axe.run(document, {runOnly: {type: "tag", values: [` + strings.Join(quoted, ",") + `]},
			resultTypes: ["violations"]});
		return JSON.stringify(r.violations.map(v => ({id: v.id, impact: v.impact || "", help: v.help,
			nodes: v.nodes.map(n => n.target.join(" ") + ": " + (n.failureSummary || "").replace(/\s+/g, " "))})));
	})()`
	var out string
	b.do(t, "run axe-core", func(ctx context.Context) (err error) {
		// Injected through the DevTools protocol, which the page's
		// Content-Security-Policy does not govern.
		loaded, err := chromedp.Run(ctx, chromedp.Evaluate[bool]("typeof axe !== 'undefined'"))
		if err == nil && !loaded {
			_, err = chromedp.Run(ctx, chromedp.Evaluate[chromedp.Void](src))
		}
		if err != nil {
			return err
		}
		out, err = chromedp.Run(ctx, chromedp.Evaluate[string](run, chromedp.EvalAwaitPromise))
		return err
	})
	var vs []AxeViolation
	if err := json.Unmarshal([]byte(out), &vs); err != nil {
		t.Fatalf("browsertest: axe-core's answer: %v", err)
	}
	return vs
}
