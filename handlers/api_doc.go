package handlers

import (
	"bytes"
	_ "embed"
	"net/http"
	"strconv"
	"strings"

	"github.com/cobble-am/cobble/views"
)

// openAPIDoc is the API's OpenAPI 3.0 document; its server's URL is the
// placeholder BASE_URL, which OpenAPIDocument fills in.
//
//go:embed openapi.json
var openAPIDoc []byte

// OpenAPIDocument returns the API's OpenAPI document, with its server's
// URL the instance's base URL.
func OpenAPIDocument(baseURL string) []byte {
	url := strconv.Quote(strings.TrimSuffix(baseURL, "/"))
	return bytes.Replace(openAPIDoc, []byte(`"BASE_URL"`), []byte(url), 1)
}

// OpenAPI serves the API's OpenAPI document (GET /api/v1/openapi.json),
// to anyone: it holds no one's data.
func (a *API) OpenAPI(w http.ResponseWriter, r *http.Request) {
	body := OpenAPIDocument(a.cfg.BaseURL)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "public, max-age=3600")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.Write(body)
}

// APIPage explains the API with curl examples (GET /api), to anyone.
func (a *API) APIPage(w http.ResponseWriter, r *http.Request) error {
	d := views.APIPage{Base: strings.TrimSuffix(a.cfg.BaseURL, "/"), PerMinute: a.cfg.APIPerMinute,
		Year: a.now().Year() - 1}
	p := a.page(r, tr(r, "api_page.title"))
	if p.User != nil {
		p.Nav = "settings"
	}
	a.render(w, r, http.StatusOK, views.APIDocs(p, d))
	return nil
}
