package chbench

import (
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"

	"github.com/sledge-bench/sledge/internal/db"
	"github.com/sledge-bench/sledge/internal/workload/tproch"
)

// Answer validation: on the validation build (ValidationBuild: one
// warehouse, the default seed, a fixed load timestamp) each query's result,
// normalised as TPROC-H's are (tproch.ReadAnswer: numbers rounded to
// cents, text without CHAR padding, dates as YYYY-MM-DD, rows sorted), is
// compared with the answer stored in answers/w1. The answers were produced
// on PostgreSQL and found equal on MariaDB and SQLite
// (TestWriteAnswers regenerates them).
//
// An answer file holds the rows, one a line. A result of more than
// answerRowsKept rows is stored as its first answerRowsKept rows under two
// header lines, "# rows N" and "# sha256 X" (the digest of all the
// normalised rows, one a line): Q10 and Q16 list thousands of customers
// and items.

//go:embed answers
var answerFiles embed.FS

// answerRowsKept bounds the rows an answer file lists.
const answerRowsKept = 200

// ValidationNow is the load timestamp of the validation build: the answers
// show it (Q3's O_ENTRY_D, the years of Q7, Q8 and Q9).
const ValidationNow = "2024-06-01 12:00:00"

// ValidationBuild is the build whose answers are stored, on its database
// with workers sessions.
func ValidationBuild(workers int) BuildOptions {
	var o BuildOptions
	o.Warehouses, o.Workers, o.Seed, o.Now = 1, workers, validationSeed, ValidationNow
	return o
}

// validationSeed is config.DefaultBuildSeed's value when the answers were
// made, written out so that a change of the default does not change them.
const validationSeed = 1

// answer is a stored answer: its rows (all, or the first answerRowsKept),
// and for a long one the count and digest of all.
type answer struct {
	rows   []string
	count  int
	digest string
}

func readAnswer(q int) (answer, error) {
	b, err := answerFiles.ReadFile(fmt.Sprintf("answers/w1/q%02d.txt", q))
	if err != nil {
		return answer{}, fmt.Errorf("answer of Q%d: %w", q, err)
	}
	return parseAnswer(string(b)), nil
}

// parseAnswer reads an answer file (formatAnswer's). A header line that
// does not parse counts as a row, so that the comparison fails.
func parseAnswer(text string) answer {
	a := answer{count: -1}
	text = strings.TrimSuffix(text, "\n")
	if text == "" {
		return answer{}
	}
	for _, line := range strings.Split(text, "\n") {
		n, err := strconv.Atoi(strings.TrimPrefix(line, "# rows "))
		switch {
		case strings.HasPrefix(line, "# rows ") && err == nil:
			a.count = n
		case strings.HasPrefix(line, "# sha256 "):
			a.digest = strings.TrimPrefix(line, "# sha256 ")
		default:
			a.rows = append(a.rows, line)
		}
	}
	if a.count < 0 {
		a.count = len(a.rows)
	}
	return a
}

// formatAnswer is the answer file of rows.
func formatAnswer(rows []string) string {
	if len(rows) <= answerRowsKept {
		if len(rows) == 0 {
			return ""
		}
		return strings.Join(rows, "\n") + "\n"
	}
	return fmt.Sprintf("# rows %d\n# sha256 %s\n%s\n", len(rows), digest(rows), strings.Join(rows[:answerRowsKept], "\n"))
}

func digest(rows []string) string {
	h := sha256.New()
	for _, r := range rows {
		h.Write([]byte(r + "\n"))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// CompareAnswer checks query q's normalised, sorted rows against its
// stored answer: row for row with TPROC-H's tolerances, and a long answer's
// count and digest exactly.
func CompareAnswer(q int, got []string) error {
	a, err := readAnswer(q)
	if err != nil {
		return err
	}
	return a.compare(got)
}

func (a answer) compare(got []string) error {
	if len(got) != a.count {
		return fmt.Errorf("%d rows, want %d", len(got), a.count)
	}
	head := got
	if a.digest != "" {
		head = got[:min(len(got), len(a.rows))]
	}
	if err := tproch.CompareRows(head, a.rows); err != nil {
		return err
	}
	if a.digest != "" && digest(got) != a.digest {
		return fmt.Errorf("the %d rows differ from the stored answer's (its first %d agree)", len(got), len(a.rows))
	}
	return nil
}

// RunQuery runs query q (1 … 22) of kind's dialect on c and returns its
// rows normalised and sorted (tproch.ReadAnswer).
func RunQuery(ctx context.Context, c db.Conn, kind db.Kind, q int) ([]string, error) {
	qs, err := Queries(kind)
	if err != nil {
		return nil, err
	}
	if q < 1 || q > len(qs) {
		return nil, fmt.Errorf("no query Q%d (want 1 … 22)", q)
	}
	rows, err := c.Query(ctx, qs[q-1])
	if err != nil {
		return nil, fmt.Errorf("Q%d: %w", q, err)
	}
	defer rows.Close()
	out, err := tproch.ReadAnswer(rows)
	if err != nil {
		return nil, fmt.Errorf("Q%d: %w", q, err)
	}
	return out, nil
}
