package report

import (
	"fmt"
	"io"
	"time"

	"github.com/sledge-bench/sledge/internal/jobs"
)

// AgentJSON is one agent of a group run in `jobs show ID agents --format
// json`: its segment, where it ran, how it ended and its own share of the
// numbers (null before it handed in its result).
type AgentJSON struct {
	Segment       string `json:"segment"`
	Host          string `json:"host"`
	PID           int    `json:"pid"`
	FirstVU       int    `json:"first_vu"` // 1-based, as the VUs are numbered in the output
	VUs           int    `json:"vus"`
	State         string `json:"state"`
	ClockOffsetMS Float  `json:"clock_offset_ms"`
	LastSeen      string `json:"last_seen"`
	// The mark of an agent counted lost (null when it never was): since
	// when it was silent, when it was counted lost, when it came back (null
	// when it did not) and for how long it was silent; late when it came
	// back — what it handed in after is kept, and includes the silence.
	SilentFrom       *string `json:"silent_from"`
	LostAt           *string `json:"lost_at"`
	BackAt           *string `json:"back_at"`
	SilentS          *Float  `json:"silent_s"`
	Late             bool    `json:"late"`
	Error            string  `json:"error"`
	Status           *string `json:"status"`
	NOPM             *Float  `json:"nopm"`
	NewOrders        *int64  `json:"new_orders"`
	Commits          *int64  `json:"commits"`
	ClientCPUS       *Float  `json:"client_cpu_s"`
	ClientCPUPerTxUS *Float  `json:"client_cpu_per_tx_us"`
}

// ToAgents shapes a group run's agents for JSON ([] for a job of one
// process).
func ToAgents(agents []jobs.Agent) []AgentJSON {
	out := make([]AgentJSON, 0, len(agents))
	for _, a := range agents {
		j := AgentJSON{Segment: a.Segment, Host: a.Host, PID: a.PID, FirstVU: a.FirstVU + 1, VUs: a.VUs, State: a.State,
			ClockOffsetMS: Float(float64(a.ClockOffset) / float64(time.Millisecond)),
			LastSeen:      a.LastSeen.UTC().Format(time.RFC3339Nano), Error: a.Error, Late: a.Late()}
		if !a.SilentFrom.IsZero() {
			silent := Float(a.Silence().Seconds())
			j.SilentFrom, j.LostAt, j.SilentS = timeJSON(a.SilentFrom), timeJSON(a.LostAt), &silent
			if a.Late() {
				j.BackAt = timeJSON(a.BackAt)
			}
		}
		if r := a.Result; r != nil {
			nopm, cpu, perTx := Float(r.NOPM), Float(r.ClientCPU.Seconds()), Float(r.ClientCPUPerTxUS)
			j.Status, j.NOPM, j.NewOrders, j.Commits, j.ClientCPUS, j.ClientCPUPerTxUS = &r.Status, &nopm, &r.NewOrders, &r.Commits, &cpu, &perTx
		}
		out = append(out, j)
	}
	return out
}

func timeJSON(t time.Time) *string {
	s := t.UTC().Format(time.RFC3339Nano)
	return &s
}

// silenceMark words an agent's silence for the table: "—" when it was
// never counted lost.
func silenceMark(a jobs.Agent) string {
	switch {
	case a.SilentFrom.IsZero():
		return "—"
	case a.Late():
		return fmt.Sprintf("late: silent %.0f s from %s", a.Silence().Seconds(), a.SilentFrom.Local().Format(time.TimeOnly))
	}
	return fmt.Sprintf("lost at %s, silent from %s", a.LostAt.Local().Format(time.TimeOnly), a.SilentFrom.Local().Format(time.TimeOnly))
}

// Agents writes a group run's agents as a table.
func Agents(w io.Writer, agents []jobs.Agent) error {
	tw := newTable(w, 0)
	fmt.Fprintln(tw, "SEGMENT\tHOST\tPID\tVUS\tSTATE\tNOPM\tNEW-ORDERS\tCLIENT CPU\tµS/TX\tCLOCK OFFSET\tSILENCE\tERROR")
	for _, a := range agents {
		nopm, orders, cpu, perTx := "—", "—", "—", "—"
		if r := a.Result; r != nil {
			nopm, orders = fmt.Sprintf("%.0f", r.NOPM), fmt.Sprint(r.NewOrders)
			cpu, perTx = fmt.Sprintf("%.2f s", r.ClientCPU.Seconds()), fmt.Sprintf("%.1f", r.ClientCPUPerTxUS)
		}
		vus := fmt.Sprintf("%d (%d–%d)", a.VUs, a.FirstVU+1, a.FirstVU+a.VUs)
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%.1f ms\t%s\t%s\n", a.Segment, a.Host, a.PID, vus, a.State,
			nopm, orders, cpu, perTx, float64(a.ClockOffset)/float64(time.Millisecond), silenceMark(a), a.Error)
	}
	return tw.Flush()
}
