package main

import (
	"context"
	"flag"
	"fmt"
	"runtime"
	"runtime/debug"
)

// buildVersion is what the binary knows of its own build, read from the
// build information the Go toolchain stamps into it, never kept by hand.
type buildVersion struct {
	version string // the main module's version; "devel" for a build from a checkout
	commit  string // the commit's first 12 hex digits, with "+dirty" for uncommitted changes; "" if unknown
	time    string // when the commit was made (RFC 3339), or ""
	goVer   string // the Go release that built it, such as go1.26.8
}

// readVersion returns this binary's build version.
func readVersion() buildVersion {
	info, _ := debug.ReadBuildInfo() // nil without build information
	return versionOf(info, runtime.Version())
}

// versionOf reads info (which may be nil) as a build version built with
// goVersion.
func versionOf(info *debug.BuildInfo, goVersion string) buildVersion {
	v := buildVersion{version: "devel", goVer: goVersion}
	if info == nil {
		return v
	}
	if m := info.Main.Version; m != "" && m != "(devel)" {
		v.version = m
	}
	var modified bool
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			v.commit = s.Value[:min(12, len(s.Value))]
		case "vcs.time":
			v.time = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	if modified && v.commit != "" {
		v.commit += "+dirty"
	}
	return v
}

// String is the version on one line: "devel (commit 0a0e494abcde, go1.26.8)",
// without the commit when it is unknown.
func (v buildVersion) String() string {
	if v.commit == "" {
		return fmt.Sprintf("%s (%s)", v.version, v.goVer)
	}
	return fmt.Sprintf("%s (commit %s, %s)", v.version, v.commit, v.goVer)
}

// version prints the build version, the commit and the Go release, one a
// line.
func (env environment) version(_ context.Context, args []string) error {
	fs := flag.NewFlagSet("version", flag.ContinueOnError)
	fs.SetOutput(env.stderr)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	v := readVersion()
	commit := "unknown (built without version control information)"
	if v.commit != "" {
		commit = v.commit
		if v.time != "" {
			commit += " (" + v.time + ")"
		}
	}
	fmt.Fprintf(env.stdout, "cobble version %s\ncommit %s\nbuilt with %s for %s/%s\n", v.version, commit, v.goVer,
		runtime.GOOS, runtime.GOARCH)
	return nil
}
