// Package webui serves the static files of Sledge's browser interface: a
// single-page application (plain JavaScript, hash routes) that talks to the
// JSON API under /api/ on the same origin. Everything it needs, including the
// chart library (uPlot, MIT, static/vendor/), is embedded in the binary: the
// pages load nothing from the network but the API.
package webui

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"net/http"
	"path"
	"strconv"
	"strings"
)

//go:embed static
var files embed.FS

// contentTypes maps the extensions of the embedded files to their media
// types, so the answer does not depend on the host's MIME tables.
var contentTypes = map[string]string{
	".html": "text/html; charset=utf-8",
	".js":   "text/javascript; charset=utf-8",
	".css":  "text/css; charset=utf-8",
	".json": "application/json",
	".svg":  "image/svg+xml",
	".png":  "image/png",
	".ico":  "image/x-icon",
	".txt":  "text/plain; charset=utf-8",
}

// csp allows nothing but this origin: scripts, styles and API calls
// (fetch, EventSource) all stay local. Inline style attributes are allowed
// because the chart library positions its elements with them.
const csp = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; " +
	"img-src 'self' data: blob:; connect-src 'self'; font-src 'self'; object-src 'none'; " +
	"base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

type file struct {
	body  []byte
	ctype string
	etag  string
}

// Handler serves the embedded files. "/" and every path that names no file
// (other than under /api/) get index.html, so that a reload or a bookmarked
// address still opens the application. /api and /api/… paths that reach this
// handler are unknown API routes and get a JSON 404.
func Handler() http.Handler {
	root, err := fs.Sub(files, "static")
	if err != nil {
		panic(err) // the embed directive guarantees static/ exists
	}
	byPath := map[string]*file{}
	err = fs.WalkDir(root, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		body, err := fs.ReadFile(root, p)
		if err != nil {
			return err
		}
		ct, ok := contentTypes[path.Ext(p)]
		if !ok {
			ct = http.DetectContentType(body)
		}
		sum := sha256.Sum256(body)
		byPath["/"+p] = &file{body: body, ctype: ct, etag: `"` + hex.EncodeToString(sum[:8]) + `"`}
		return nil
	})
	if err != nil {
		panic(err)
	}
	index := byPath["/index.html"]
	if index == nil {
		panic("webui: static/index.html missing")
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := r.URL.Path
		if p == "/api" || strings.HasPrefix(p, "/api/") {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("X-Content-Type-Options", "nosniff")
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(`{"error":"no such API route"}` + "\n"))
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		f := byPath[path.Clean("/"+p)]
		if f == nil {
			f = index
		}
		h := w.Header()
		h.Set("Content-Type", f.ctype)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Cache-Control", "no-cache") // revalidate: a new binary may bring new files
		h.Set("ETag", f.etag)
		if f == index {
			h.Set("Content-Security-Policy", csp)
			h.Set("Referrer-Policy", "no-referrer")
		}
		if match := r.Header.Get("If-None-Match"); match != "" && etagMatches(match, f.etag) {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		h.Set("Content-Length", strconv.Itoa(len(f.body)))
		if r.Method == http.MethodHead {
			return
		}
		_, _ = w.Write(f.body)
	})
}

func etagMatches(header, etag string) bool {
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimSpace(t)
		if t == "*" || strings.TrimPrefix(t, "W/") == etag {
			return true
		}
	}
	return false
}
