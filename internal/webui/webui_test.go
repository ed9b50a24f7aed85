package webui

import (
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
)

func get(t *testing.T, srv *httptest.Server, path string, hdr map[string]string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, srv.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	res, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res, string(body)
}

func TestIndex(t *testing.T) {
	srv := httptest.NewServer(Handler())
	defer srv.Close()
	res, body := get(t, srv, "/", nil)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("GET / = %d", res.StatusCode)
	}
	if ct := res.Header.Get("Content-Type"); ct != "text/html; charset=utf-8" {
		t.Errorf("GET / Content-Type = %q", ct)
	}
	if !strings.Contains(body, `<main id="app"`) || !strings.Contains(body, `src="/app.js"`) {
		t.Errorf("GET / is not index.html:\n%s", body)
	}
	if res.Header.Get("Content-Security-Policy") == "" {
		t.Error("index.html without a Content-Security-Policy")
	}
	// Revalidation with the ETag gets a 304.
	res2, _ := get(t, srv, "/", map[string]string{"If-None-Match": res.Header.Get("ETag")})
	if res2.StatusCode != http.StatusNotModified {
		t.Errorf("GET / with If-None-Match = %d, want 304", res2.StatusCode)
	}
}

func TestAssets(t *testing.T) {
	srv := httptest.NewServer(Handler())
	defer srv.Close()
	for path, want := range map[string]string{
		"/app.js":                   "text/javascript; charset=utf-8",
		"/app.css":                  "text/css; charset=utf-8",
		"/vendor/uPlot.iife.min.js": "text/javascript; charset=utf-8",
		"/vendor/uPlot.min.css":     "text/css; charset=utf-8",
		"/index.html":               "text/html; charset=utf-8",
	} {
		res, body := get(t, srv, path, nil)
		if res.StatusCode != http.StatusOK {
			t.Errorf("GET %s = %d", path, res.StatusCode)
			continue
		}
		if ct := res.Header.Get("Content-Type"); ct != want {
			t.Errorf("GET %s Content-Type = %q, want %q", path, ct, want)
		}
		if len(body) == 0 {
			t.Errorf("GET %s: empty body", path)
		}
		if strings.HasSuffix(path, ".js") && strings.HasPrefix(strings.TrimSpace(body), "<") {
			t.Errorf("GET %s served HTML", path)
		}
	}
	_, js := get(t, srv, "/vendor/uPlot.iife.min.js", nil)
	if !strings.Contains(js, "uPlot") {
		t.Error("/vendor/uPlot.iife.min.js is not uPlot")
	}
}

func TestFallback(t *testing.T) {
	srv := httptest.NewServer(Handler())
	defer srv.Close()
	_, index := get(t, srv, "/", nil)
	for _, path := range []string{"/jobs/12", "/compare", "/no/such/page", "/vendor/", "/../../etc/passwd"} {
		res, body := get(t, srv, path, nil)
		if res.StatusCode != http.StatusOK || body != index {
			t.Errorf("GET %s = %d, not index.html", path, res.StatusCode)
		}
		if ct := res.Header.Get("Content-Type"); ct != "text/html; charset=utf-8" {
			t.Errorf("GET %s Content-Type = %q", path, ct)
		}
	}
	for _, path := range []string{"/api", "/api/nope"} {
		res, body := get(t, srv, path, nil)
		if res.StatusCode != http.StatusNotFound || !strings.Contains(body, `"error"`) {
			t.Errorf("GET %s = %d %q, want a JSON 404", path, res.StatusCode, body)
		}
	}
	req := httptest.NewRequest(http.MethodPost, "/", nil)
	rec := httptest.NewRecorder()
	Handler().ServeHTTP(rec, req)
	if rec.Code != http.StatusMethodNotAllowed {
		t.Errorf("POST / = %d, want 405", rec.Code)
	}
}

func TestHead(t *testing.T) {
	req := httptest.NewRequest(http.MethodHead, "/app.js", nil)
	rec := httptest.NewRecorder()
	Handler().ServeHTTP(rec, req)
	if rec.Code != http.StatusOK || rec.Body.Len() != 0 || rec.Header().Get("Content-Length") == "" {
		t.Errorf("HEAD /app.js = %d, body %d bytes, Content-Length %q", rec.Code, rec.Body.Len(), rec.Header().Get("Content-Length"))
	}
}

// TestNoNetwork checks that the page loads nothing from elsewhere: no
// http(s):// or protocol-relative URL in index.html, app.js or app.css.
func TestNoNetwork(t *testing.T) {
	external := regexp.MustCompile(`(?i)https?://|(?:src|href)\s*=\s*["']//|url\(\s*["']?//|@import`)
	for _, name := range []string{"static/index.html", "static/app.js", "static/app.css"} {
		b, err := fs.ReadFile(files, name)
		if err != nil {
			t.Fatal(err)
		}
		// The SVG namespace is an identifier, not a fetched URL.
		text := strings.ReplaceAll(string(b), "http://www.w3.org/2000/svg", "")
		if m := external.FindString(text); m != "" {
			t.Errorf("%s references an external resource: %q", name, m)
		}
	}
}
