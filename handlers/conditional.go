package handlers

import (
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"strings"
)

// Conditional GET, for every answer that carries an ETag (the API's JSON,
// the badges): the caller sets its Cache-Control, then notModified.

// notModified sets body's ETag (a digest of its bytes) and, when r's
// If-None-Match names that ETag, answers 304 and reports true; otherwise
// the caller writes body.
func notModified(w http.ResponseWriter, r *http.Request, body []byte) bool {
	sum := sha256.Sum256(body)
	etag := `"` + base64.RawURLEncoding.EncodeToString(sum[:18]) + `"`
	w.Header().Set("ETag", etag)
	if etagMatches(r.Header.Get("If-None-Match"), etag) {
		w.WriteHeader(http.StatusNotModified)
		return true
	}
	return false
}

// etagMatches reports whether an If-None-Match header names etag, or is
// "*"; weak tags compare by their opaque part (RFC 9110, 13.1.2).
func etagMatches(header, etag string) bool {
	for part := range strings.SplitSeq(header, ",") {
		part = strings.TrimPrefix(strings.TrimSpace(part), "W/")
		if part == "*" || part == etag {
			return true
		}
	}
	return false
}
