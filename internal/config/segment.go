package config

import (
	"fmt"
	"math/big"
	"strconv"
	"strings"
)

// Segment is one process's part of a run spread over several processes: the
// half-open fraction range [From, To) of the run, 0 <= From < To <= 1, held
// exactly (as k6's execution segments). Each process computes its share of
// the VUs (or warehouses) from its own segment alone: Share. Segments that
// chain — [0, a), [a, b), [b, 1) — share out any n items with no gap and no
// overlap.
//
// The zero Segment is the whole run. Segments are comparable with ==.
type Segment struct {
	// The bounds as reduced fractions with positive denominators; all zero
	// in the zero value, which is the whole run [0, 1).
	fromNum, fromDen, toNum, toDen int64
}

// Whole is the whole run, [0, 1).
func Whole() Segment { return Segment{} }

// IsWhole reports whether s is the whole run.
func (s Segment) IsWhole() bool { return s == Segment{} }

// From is the segment's start, a fraction of the run.
func (s Segment) From() *big.Rat {
	if s.fromDen == 0 {
		return new(big.Rat)
	}
	return big.NewRat(s.fromNum, s.fromDen)
}

// To is the segment's end (excluded), a fraction of the run.
func (s Segment) To() *big.Rat {
	if s.toDen == 0 {
		return big.NewRat(1, 1)
	}
	return big.NewRat(s.toNum, s.toDen)
}

// Len is the part of the run the segment covers, To − From.
func (s Segment) Len() *big.Rat { return new(big.Rat).Sub(s.To(), s.From()) }

// NewSegment is the segment [from, to); it fails unless 0 <= from < to <= 1
// and both fit in 64-bit numerators and denominators.
func NewSegment(from, to *big.Rat) (Segment, error) {
	if from.Sign() < 0 || to.Cmp(big.NewRat(1, 1)) > 0 || from.Cmp(to) >= 0 {
		return Segment{}, fmt.Errorf("segment %s:%s: want 0 <= start < end <= 1", ratString(from), ratString(to))
	}
	if !fits(from) || !fits(to) {
		return Segment{}, fmt.Errorf("segment %s:%s: too fine a fraction (numerators and denominators are 64-bit)", ratString(from), ratString(to))
	}
	if from.Sign() == 0 && to.Cmp(big.NewRat(1, 1)) == 0 {
		return Segment{}, nil
	}
	return Segment{from.Num().Int64(), from.Denom().Int64(), to.Num().Int64(), to.Denom().Int64()}, nil
}

func fits(r *big.Rat) bool { return r.Num().IsInt64() && r.Denom().IsInt64() }

// ParseSegment reads a segment:
//
//   - "" — the whole run;
//   - "I/N" — the I-th of N equal parts, 0-based (0 <= I < N): [I/N, (I+1)/N);
//   - "A:B" — [A, B), each a fraction or a decimal ("1/3:2/3", "0:0.5").
func ParseSegment(s string) (Segment, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return Segment{}, nil
	}
	if a, b, ok := strings.Cut(s, ":"); ok {
		from, err := parseFraction(s, a, "start")
		if err != nil {
			return Segment{}, err
		}
		to, err := parseFraction(s, b, "end")
		if err != nil {
			return Segment{}, err
		}
		switch {
		case from.Cmp(big.NewRat(1, 1)) >= 0:
			return Segment{}, fmt.Errorf("segment %s: the start must be below 1", s)
		case to.Cmp(big.NewRat(1, 1)) > 0:
			return Segment{}, fmt.Errorf("segment %s: the end must not be beyond 1", s)
		case from.Cmp(to) >= 0:
			return Segment{}, fmt.Errorf("segment %s: the start must be below the end", s)
		}
		seg, err := NewSegment(from, to)
		if err != nil {
			return Segment{}, fmt.Errorf("segment %s: too fine a fraction (numerators and denominators are 64-bit)", s)
		}
		return seg, nil
	}
	is, ns, ok := strings.Cut(s, "/")
	if !ok {
		return Segment{}, fmt.Errorf("segment %s: want I/N (the I-th of N parts, 0-based, e.g. 0/3) or A:B fractions of the run (e.g. 0:1/3)", s)
	}
	i, ierr := strconv.ParseInt(is, 10, 64)
	n, nerr := strconv.ParseInt(ns, 10, 64)
	switch {
	case ierr != nil || nerr != nil || !digits(is) || !digits(ns):
		return Segment{}, fmt.Errorf("segment %s: want I/N with whole numbers (the I-th of N parts, 0-based, e.g. 0/3), or A:B fractions of the run (e.g. 0:1/3)", s)
	case n < 1:
		return Segment{}, fmt.Errorf("segment %s: the count must be at least 1", s)
	case i >= n:
		return Segment{}, fmt.Errorf("segment %s: the index must be below the count (0-based)", s)
	}
	return NewSegment(big.NewRat(i, n), big.NewRat(i+1, n))
}

// digits reports whether s is a non-empty run of ASCII digits (no sign).
func digits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}

// parseFraction reads one bound of "A:B": "1/3", "0.25", "0", "1".
func parseFraction(seg, v, which string) (*big.Rat, error) {
	v = strings.TrimSpace(v)
	ok := v != ""
	for _, r := range v {
		ok = ok && (r >= '0' && r <= '9' || r == '.' || r == '/')
	}
	var r *big.Rat
	if ok {
		r, ok = new(big.Rat).SetString(v)
	}
	if !ok {
		return nil, fmt.Errorf("segment %s: the %s %q is not a fraction like 1/3 or a decimal like 0.5", seg, which, v)
	}
	return r, nil
}

// String writes the segment as ParseSegment reads it back: "I/N" when it is
// one of N equal parts, else "A:B" with reduced fractions; the whole run is
// "0:1".
func (s Segment) String() string {
	if s.IsWhole() {
		return "0:1"
	}
	if i, n, ok := s.Parts(); ok {
		return strconv.FormatInt(i, 10) + "/" + strconv.FormatInt(n, 10)
	}
	return ratString(s.From()) + ":" + ratString(s.To())
}

// ratString is "0", "1" or "a/b".
func ratString(r *big.Rat) string {
	if r.IsInt() {
		return r.Num().String()
	}
	return r.String()
}

// Share is the segment's part of n items numbered 0..n−1: the items first ..
// first+count−1, where first = ⌊From·n⌋ and first+count = ⌊To·n⌋, computed
// exactly. The shares of segments that chain partition the items for any n;
// a share may be empty (count 0) when n is small.
func (s Segment) Share(n int) (first, count int) {
	if s.IsWhole() || n <= 0 {
		return 0, max(n, 0)
	}
	first = floorMul(s.fromNum, s.fromDen, n)
	end := floorMul(s.toNum, s.toDen, n)
	return first, end - first
}

// floorMul is ⌊num·n/den⌋ for 0 <= num <= den, den > 0, n >= 0, without
// overflow.
func floorMul(num, den int64, n int) int {
	p := new(big.Int).Mul(big.NewInt(num), big.NewInt(int64(n)))
	return int(p.Quo(p, big.NewInt(den)).Int64())
}

// Parts reports whether the segment is one of N equal parts, and which
// (0-based): I/N as ParseSegment reads it.
func (s Segment) Parts() (index, count int64, ok bool) {
	if s.IsWhole() {
		return 0, 1, true
	}
	w := s.Len()
	if !w.Num().IsInt64() || w.Num().Int64() != 1 || !w.Denom().IsInt64() {
		return 0, 0, false
	}
	n := w.Denom().Int64()
	i := new(big.Rat).Mul(s.From(), big.NewRat(n, 1))
	if !i.IsInt() {
		return 0, 0, false
	}
	return i.Num().Int64(), n, true
}
