package report

import (
	"fmt"
	"io"
)

// JobsJSONTable writes jobs as a server's API returned them (a remote
// `sledge jobs`): the columns of JobsTable that the JSON carries.
func JobsJSONTable(w io.Writer, list []JobJSON) error {
	tw := newTable(w, 0)
	// The columns of the local `sledge jobs` table (JobsTable) the API
	// gives: TPROC-C's NOPM and TPM, TPROC-H's geometric mean.
	fmt.Fprintln(tw, "ID\tKIND\tWORKLOAD\tSTATUS\tTARGET\tSTARTED\tNOPM\tTPM\tGEOMEAN")
	for _, j := range list {
		nopm, tpm, geomean := "", "", ""
		if j.NOPM != nil {
			nopm = Rate(float64(*j.NOPM))
		}
		if j.TPM != nil {
			tpm = Rate(float64(*j.TPM))
		}
		if j.GeomeanS != nil {
			geomean = fmt.Sprintf("%.3f s", float64(*j.GeomeanS))
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", j.ID, j.Kind, Dash(j.Workload), j.Status,
			Dash(j.Target), j.StartedAt, nopm, tpm, geomean)
	}
	return tw.Flush()
}
