package report

import (
	"fmt"
	"io"
)

// JobsJSONTable writes jobs as a server's API returned them (a remote
// `sledge jobs`): the columns of JobsTable that the JSON carries.
func JobsJSONTable(w io.Writer, list []JobJSON) error {
	tw := newTable(w, 0)
	fmt.Fprintln(tw, "ID\tKIND\tWORKLOAD\tSTATUS\tTARGET\tSTARTED\tNOPM\tTPM")
	for _, j := range list {
		nopm, tpm := "", ""
		if j.NOPM != nil {
			nopm = Rate(float64(*j.NOPM))
		}
		if j.TPM != nil {
			tpm = Rate(float64(*j.TPM))
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", j.ID, j.Kind, Dash(j.Workload), j.Status,
			Dash(j.Target), j.StartedAt, nopm, tpm)
	}
	return tw.Flush()
}
