package web_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"
	"github.com/go-chi/chi/v5"

	"github.com/cobble-am/cobble/handlers"
)

// apiClient calls the API of one test server with one token and checks
// every answer against the OpenAPI document the server serves.
type apiClient struct {
	t      testing.TB
	base   string // the server's URL, without the final slash
	token  string
	router routers.Router
	client *http.Client // http.DefaultClient unless a test sets another
}

// newAPIClient loads and validates the server's OpenAPI document.
func newAPIClient(t testing.TB, base, token string) *apiClient {
	t.Helper()
	resp, err := http.Get(base + "/api/v1/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("openapi.json: status %d, %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	doc, err := openapi3.NewLoader().LoadFromData(data)
	if err != nil {
		t.Fatalf("the OpenAPI document does not load: %v", err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("the OpenAPI document is not valid: %v", err)
	}
	// The document names the configured base URL; the test's server is
	// elsewhere.
	doc.Servers = openapi3.Servers{{URL: base}}
	router, err := legacy.NewRouter(doc)
	if err != nil {
		t.Fatal(err)
	}
	return &apiClient{t: t, base: base, token: token, router: router, client: http.DefaultClient}
}

// apiAnswer is one answer of the API.
type apiAnswer struct {
	status int
	header http.Header
	body   []byte
}

// json decodes the answer's body into v.
func (a apiAnswer) json(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(a.body, v); err != nil {
		t.Fatalf("body %q: %v", a.body, err)
	}
}

// get requests path (with its query) with the client's token and the
// headers given as name, value pairs, and validates the answer against the
// document: its status must be documented and its body and headers must
// match; a 200 or 304 answers a request the document allows.
func (c *apiClient) get(path string, header ...string) apiAnswer {
	c.t.Helper()
	return c.request("GET", path, header...)
}

// request is get with another method.
func (c *apiClient) request(method, path string, header ...string) apiAnswer {
	c.t.Helper()
	req, _ := http.NewRequest(method, c.base+path, nil)
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := c.client.Do(req)
	if err != nil {
		c.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	a := apiAnswer{status: resp.StatusCode, header: resp.Header, body: body}
	c.validate(req, a)
	return a
}

// validate checks one request and its answer against the document.
func (c *apiClient) validate(req *http.Request, a apiAnswer) {
	c.t.Helper()
	route, params, err := c.router.FindRoute(req)
	if err != nil {
		if a.status != http.StatusNotFound && a.status != http.StatusMethodNotAllowed {
			c.t.Errorf("%s %s is not in the OpenAPI document (%v), and answered %d", req.Method, req.URL, err, a.status)
		}
		return
	}
	opts := &openapi3filter.Options{IncludeResponseStatus: true, AuthenticationFunc: openapi3filter.NoopAuthenticationFunc}
	in := &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route, Options: opts}
	if a.status == http.StatusOK || a.status == http.StatusNotModified {
		if err := openapi3filter.ValidateRequest(context.Background(), in); err != nil {
			c.t.Errorf("GET %s answered %d, but the document refuses the request: %v", req.URL, a.status, err)
		}
	}
	out := &openapi3filter.ResponseValidationInput{RequestValidationInput: in, Status: a.status, Header: a.header,
		Body: io.NopCloser(bytes.NewReader(a.body)), Options: opts}
	if err := openapi3filter.ValidateResponse(context.Background(), out); err != nil {
		c.t.Errorf("GET %s: the answer (%d) does not match the OpenAPI document: %v\n%s", req.URL, a.status, err, a.body)
	}
}

// chiParam turns chi's {name} patterns into OpenAPI's, which are the same.
var chiParam = regexp.MustCompile(`\{([a-z_]+)\}`)

// The route table's API routes and the OpenAPI document's paths are the
// same set: a route missing from the document, or a path the server does
// not serve, fails.
func TestAPIRoutesAreTheDocumentsPaths(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	doc, err := openapi3.NewLoader().LoadFromData(handlers.OpenAPIDocument(e.http.URL + "/"))
	if err != nil {
		t.Fatal(err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("the OpenAPI document is not valid: %v", err)
	}
	var served []string
	err = chi.Walk(e.srv.Handler().(chi.Routes), func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		if strings.HasPrefix(route, "/api/v1/") || route == "/credit.json" { // the measure is documented too
			if method != http.MethodGet {
				t.Errorf("%s %s: the API only reads", method, route)
			}
			served = append(served, chiParam.ReplaceAllString(route, "{$1}"))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	documented := doc.Paths.InMatchingOrder()
	slices.Sort(served)
	slices.Sort(documented)
	if len(served) < 7 || !slices.Equal(served, documented) {
		t.Errorf("served API routes %q\ndocumented paths %q", served, documented)
	}
	for _, path := range documented {
		if item := doc.Paths.Value(path); item.Get == nil || len(item.Operations()) != 1 {
			t.Errorf("%s: the document names an operation other than GET", path)
		}
	}
}
