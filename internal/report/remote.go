package report

import (
	"io"
	"math"
	"time"

	"github.com/sledge-bench/sledge/internal/jobs"
)

// JobsJSONTable writes jobs as a server's API returned them (GET
// /api/jobs): JobsTable of the records they describe, so that a listing
// read over the API reads as a local one.
func JobsJSONTable(w io.Writer, list []JobJSON) error {
	recs := make([]jobs.Job, len(list))
	for i, j := range list {
		recs[i] = FromJob(j)
	}
	return JobsTable(w, recs)
}

// FromJob is the job record a JobJSON describes (ToJob's inverse for what
// a listing shows; a time that does not parse stays zero).
func FromJob(j JobJSON) jobs.Job {
	r := jobs.Job{ID: j.ID, Kind: j.Kind, Workload: j.Workload, Status: j.Status, DBKind: j.DBKind, Target: j.Target,
		DBVersion: j.DBVersion, Host: j.Host, PID: j.PID, Error: j.Error,
		PartOf: jobs.PartOf{Series: j.Series, Trial: j.Trial, Profile: j.Profile, ProfileVU: j.ProfileVU}}
	r.CreatedAt, _ = time.Parse(time.RFC3339Nano, j.CreatedAt)
	r.StartedAt, _ = time.Parse(time.RFC3339Nano, j.StartedAt)
	if j.EndedAt != nil {
		r.EndedAt, _ = time.Parse(time.RFC3339Nano, *j.EndedAt)
	}
	if j.NOPM != nil && j.TPM != nil {
		// (The API's job listing does not carry the database's count.)
		r.Headline = &jobs.Headline{NOPM: float64(*j.NOPM), TPM: float64(*j.TPM), NOPMDBCheck: math.NaN()}
	}
	if j.GeomeanS != nil {
		g := float64(*j.GeomeanS)
		r.GeomeanS = &g
	}
	return r
}
