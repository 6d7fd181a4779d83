// Package static embeds Cobble's CSS and images and serves them under
// fingerprinted names, so browsers may cache them forever.
package static

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"net/http"
	"path"
	"regexp"
	"strings"
)

//go:embed files
var embedded embed.FS

// Prefix is where assets are served.
const Prefix = "/static/"

// Assets maps logical names ("style.css") to fingerprinted paths and serves them.
type Assets struct {
	paths map[string]string // logical name → "/static/style.<hash>.css"
	files map[string][]byte // fingerprinted name → content
}

// Load fingerprints every embedded asset.
func Load() (*Assets, error) {
	sub, err := fs.Sub(embedded, "files")
	if err != nil {
		return nil, err
	}
	a := &Assets{paths: map[string]string{}, files: map[string][]byte{}}
	err = fs.WalkDir(sub, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(sub, name)
		if err != nil {
			return err
		}
		ext := path.Ext(name)
		if ext == ".css" {
			b = stripComments(b)
		}
		sum := sha256.Sum256(b)
		printed := strings.TrimSuffix(name, ext) + "." + hex.EncodeToString(sum[:6]) + ext
		a.paths[name], a.files[printed] = Prefix+printed, b
		return nil
	})
	return a, err
}

// cssComment is a CSS comment and the blank line after it, if any.
var cssComment = regexp.MustCompile(`(?s)/\*.*?\*/\n?`)

// stripComments removes the comments of a stylesheet, which explain it to
// its readers and would cost every page's first visit their bytes (about
// 2 KB of style.css). Cobble's stylesheet holds no "/*" inside a string.
func stripComments(css []byte) []byte { return cssComment.ReplaceAll(css, nil) }

// Path returns the fingerprinted URL path of a logical asset name; it panics
// on a name that is not embedded, which is a programming error caught by tests.
func (a *Assets) Path(name string) string {
	p, ok := a.paths[name]
	if !ok {
		panic("static: no asset " + name)
	}
	return p
}

// ServeHTTP serves a fingerprinted asset with a year-long immutable cache.
func (a *Assets) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	name := strings.TrimPrefix(r.URL.Path, Prefix)
	b, ok := a.files[name]
	if !ok {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
	if ct := contentType(path.Ext(name)); ct != "" {
		w.Header().Set("Content-Type", ct)
	}
	w.Write(b)
}

func contentType(ext string) string {
	switch ext {
	case ".css":
		return "text/css; charset=utf-8"
	case ".svg":
		return "image/svg+xml"
	case ".png":
		return "image/png"
	case ".ico":
		return "image/x-icon"
	}
	return ""
}

// ServeFavicon serves the site's icon at /favicon.ico, where browsers ask
// for it, cached for a day (the name carries no fingerprint).
func (a *Assets) ServeFavicon(w http.ResponseWriter, r *http.Request) {
	b := a.files[strings.TrimPrefix(a.Path("favicon.ico"), Prefix)]
	w.Header().Set("Cache-Control", "public, max-age=86400")
	w.Header().Set("Content-Type", contentType(".ico"))
	w.Write(b)
}
