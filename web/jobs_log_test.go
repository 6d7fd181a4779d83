package web

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
)

// River's log reaches Cobble's with its warnings and errors only, also
// through loggers River derives with attributes or groups.
func TestRiverLogWarningsOnly(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(warnings{slog.NewTextHandler(&buf, nil)})
	for _, l := range []*slog.Logger{log, log.With("service", "elector"), log.WithGroup("river")} {
		l.Info("gained leadership")
		l.Warn("lost the database")
	}
	out := buf.String()
	if strings.Contains(out, "gained leadership") || strings.Count(out, "lost the database") != 3 {
		t.Errorf("the log:\n%s", out)
	}
}
