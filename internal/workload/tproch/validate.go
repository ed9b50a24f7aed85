package tproch

import (
	"embed"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/sledge-bench/sledge/internal/db"
)

// Answer validation: with the specification's validation parameters at
// SF 1, every query's result is compared with the answers stored in
// answers/sf1 (derived from this generator's data on DuckDB and on
// PostgreSQL, which agreed; TestWriteAnswersSF1 regenerates them). Results
// are normalised so that engines compare: numbers rounded to cents, text
// without CHAR padding, dates as YYYY-MM-DD, rows sorted (ties in ORDER BY
// may come in any order).

//go:embed answers
var answerFiles embed.FS

// Answer is a query's expected result at SF 1, one normalised row per line.
func Answer(q int) ([]string, error) {
	b, err := answerFiles.ReadFile(fmt.Sprintf("answers/sf1/q%02d.txt", q))
	if err != nil {
		return nil, fmt.Errorf("answer of Q%d: %w", q, err)
	}
	text := strings.TrimSuffix(string(b), "\n")
	if text == "" {
		return []string{}, nil
	}
	return strings.Split(text, "\n"), nil
}

// CompareAnswer checks normalised, sorted rows against the stored answer
// with the specification's tolerances, simplified: text and whole numbers
// exact, other numbers within 1% or 0.01, large sums within 100.
func CompareAnswer(q int, got []string) error {
	want, err := Answer(q)
	if err != nil {
		return err
	}
	return CompareRows(got, want)
}

// CompareRows checks normalised, sorted rows against the expected ones
// with CompareAnswer's tolerances. CH-benCHmark's answers are compared with
// it too.
func CompareRows(got, want []string) error {
	if len(got) != len(want) {
		return fmt.Errorf("%d rows, want %d", len(got), len(want))
	}
	for i := range want {
		g, w := strings.Split(got[i], "|"), strings.Split(want[i], "|")
		if len(g) != len(w) {
			return fmt.Errorf("row %d: %d columns, want %d", i+1, len(g), len(w))
		}
		for j := range w {
			if !cellMatches(g[j], w[j]) {
				return fmt.Errorf("row %d column %d: %q, want %q", i+1, j+1, g[j], w[j])
			}
		}
	}
	return nil
}

func cellMatches(got, want string) bool {
	if got == want {
		return true
	}
	g, err1 := strconv.ParseFloat(got, 64)
	w, err2 := strconv.ParseFloat(want, 64)
	if err1 != nil || err2 != nil {
		return false
	}
	if w == math.Trunc(w) && math.Abs(w) < 1e6 {
		return false // counts and keys: exact
	}
	d := math.Abs(g - w)
	return d <= 0.01 || d <= 0.01*math.Abs(w) || math.Abs(w) >= 1e4 && d <= 100
}

// ReadAnswer fetches a query's rows, normalised and sorted.
func ReadAnswer(rows db.Rows) ([]string, error) {
	var out []string
	for rows.Next() {
		vals, err := RowValues(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, strings.Join(vals, "|"))
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	sort.Strings(out)
	return out, nil
}

// RowValues reads the current row as normalised strings.
func RowValues(rows db.Rows) ([]string, error) {
	var raw []any
	switch r := rows.(type) {
	case interface{ Values() ([]any, error) }: // pgx
		v, err := r.Values()
		if err != nil {
			return nil, err
		}
		raw = v
	case interface{ Columns() ([]string, error) }: // database/sql
		cols, err := r.Columns()
		if err != nil {
			return nil, err
		}
		raw = make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range raw {
			ptrs[i] = &raw[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("cannot read columns from %T", rows)
	}
	out := make([]string, len(raw))
	for i, v := range raw {
		out[i] = normalise(v)
	}
	return out, nil
}

func normalise(v any) string {
	var s string
	switch x := v.(type) {
	case nil:
		return "NULL"
	case time.Time:
		return x.UTC().Format("2006-01-02")
	case []byte:
		s = string(x)
	case string:
		s = x
	case pgtype.Numeric:
		f, err := x.Float64Value()
		if err != nil || !f.Valid {
			return "NULL"
		}
		return normalise(f.Float64)
	case fmt.Stringer:
		s = x.String()
	default:
		s = fmt.Sprint(x)
	}
	s = strings.TrimRight(s, " ")
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		return strconv.FormatFloat(math.Round(f*100)/100, 'f', 2, 64)
	}
	if len(s) >= 10 && s[4] == '-' && s[7] == '-' {
		if _, err := time.Parse("2006-01-02", s[:10]); err == nil {
			return s[:10]
		}
	}
	return s
}
