package report

import (
	"fmt"
	"io"

	"github.com/sledge-bench/sledge/internal/jobs"
)

// JobList writes a repository's jobs as `sledge jobs` lists them: a table,
// "no jobs in PATH" when there are none, or (asJSON) an array of JobJSON,
// [] rather than null when there are none.
func JobList(w io.Writer, list []jobs.Job, path string, asJSON bool) error {
	if asJSON {
		out := make([]JobJSON, 0, len(list))
		for _, j := range list {
			out = append(out, ToJob(j))
		}
		return WriteJSON(w, out)
	}
	if len(list) == 0 {
		_, err := fmt.Fprintf(w, "no jobs in %s\n", path)
		return err
	}
	return JobsTable(w, list)
}
