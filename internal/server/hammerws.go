package server

import (
	"io"
	"net/http"

	"github.com/sledge-bench/sledge/internal/script"
)

// hammerCSP is the policy of the service's pages: inline SVG charts and
// styles, no script, nothing fetched from anywhere.
const hammerCSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// hammerJobs is HammerDB's web service (hammerdbws) at GET /jobs: its read
// forms (/jobs, /jobs?jobid=ID&…, /jobs?profileid=N…,
// /jobs?cmd=profilediff…) answered by the jobs command's own code
// (script.Command.Web) from the server's repository. Unlike HammerDB's
// service it needs the API token when one is set, sends no CORS headers
// and changes nothing: the forms that delete are refused.
func (s *Server) hammerJobs(w http.ResponseWriter, r *http.Request) {
	repo, ok := s.store.(script.Repository)
	if !ok {
		apiError(w, http.StatusNotImplemented, "", "this server's repository does not answer HammerDB's jobs service")
		return
	}
	a, err := (&script.Command{Repo: repo}).Web(r.Context(), r.URL.Query())
	if err != nil {
		apiError(w, http.StatusInternalServerError, "", err.Error())
		return
	}
	h := w.Header()
	h.Set("Content-Type", a.Type)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "no-store")
	if a.Type == script.TypeHTML {
		h.Set("Content-Security-Policy", hammerCSP)
		h.Set("Referrer-Policy", "no-referrer")
	}
	if a.Status == http.StatusMethodNotAllowed {
		// HammerDB's delete-by-GET forms: no method does this here (an
		// empty Allow); the body names the API's DELETE.
		h.Set("Allow", "")
	}
	w.WriteHeader(a.Status)
	if r.Method != http.MethodHead {
		_, _ = io.WriteString(w, a.Body)
	}
}
