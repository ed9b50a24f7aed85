package tproch

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestStreamOrder(t *testing.T) {
	t.Parallel()
	for s := 0; s < 41; s++ {
		row := StreamOrder(s)
		seen := [23]bool{}
		for _, q := range row {
			if q < 1 || q > 22 || seen[q] {
				t.Fatalf("row %d %v is not a permutation of 1..22", s, row)
			}
			seen[q] = true
		}
		if StreamOrder(s+41) != row || StreamOrder(s+82) != row {
			t.Errorf("stream %d does not wrap modulo 41", s)
		}
	}
	// Rows 0 and 1 and 40 as printed in the specification's Appendix A.
	for s, want := range map[int][22]int{
		0:  {14, 2, 9, 20, 6, 17, 18, 8, 21, 13, 3, 22, 16, 4, 11, 15, 1, 10, 19, 5, 7, 12},
		1:  {21, 3, 18, 5, 11, 7, 6, 20, 17, 12, 16, 15, 13, 10, 2, 8, 14, 19, 9, 22, 1, 4},
		40: {13, 15, 17, 1, 22, 11, 3, 4, 7, 20, 14, 21, 9, 8, 2, 18, 16, 6, 10, 12, 5, 19},
	} {
		if got := StreamOrder(s); got != want {
			t.Errorf("row %d = %v, want %v", s, got, want)
		}
	}
	// All rows differ.
	for a := 0; a < 41; a++ {
		for b := a + 1; b < 41; b++ {
			if StreamOrder(a) == StreamOrder(b) {
				t.Errorf("rows %d and %d are equal", a, b)
			}
		}
	}
	if StreamOrder(-1) != StreamOrder(40) {
		t.Error("negative stream")
	}
}

func TestValidationParams(t *testing.T) {
	t.Parallel()
	// The reference sheet's §3 validation column (qgen -d).
	want := map[int]string{
		1: "90", 2: "15|BRASS|EUROPE", 3: "BUILDING|1995-03-15", 4: "1993-07-01", 5: "ASIA|1994-01-01",
		6: "1994-01-01|0.06|24", 7: "FRANCE|GERMANY", 8: "BRAZIL|AMERICA|ECONOMY ANODIZED STEEL",
		9: "green", 10: "1993-10-01", 11: "GERMANY|0.0001", 12: "MAIL|SHIP|1994-01-01",
		13: "special|requests", 14: "1995-09-01", 15: "1996-01-01",
		16: "Brand#45|MEDIUM POLISHED|49|14|23|45|19|3|36|9", 17: "Brand#23|MED BOX", 18: "300",
		19: "Brand#12|Brand#23|Brand#34|1|10|20", 20: "forest|1994-01-01|CANADA", 21: "SAUDI ARABIA",
		22: "13|31|23|29|30|18|17",
	}
	for q := 1; q <= 22; q++ {
		got := ValidationParams(q)
		if strings.Join(got, "|") != want[q] {
			t.Errorf("q%d validation %q, want %q", q, got, want[q])
		}
		if len(got) != wantPlaceholders[q-1] {
			t.Errorf("q%d: %d validation values, want %d", q, len(got), wantPlaceholders[q-1])
		}
		got[0] = "changed"
		if ValidationParams(q)[0] == "changed" {
			t.Errorf("q%d: ValidationParams returns shared storage", q)
		}
		// The validation values lie in the generated ranges (except Q18's 300).
		if q != 18 {
			checkParams(t, q, ValidationParams(q), 1)
		}
	}
	if ValidationParams(0) != nil || ValidationParams(23) != nil || QueryParams(0, 1, 1) != nil || QueryParams(23, 1, 1) != nil {
		t.Error("out-of-range query number accepted")
	}
}

var (
	dateRE  = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)
	brandRE = regexp.MustCompile(`^Brand#[1-5][1-5]$`)
)

func intIn(t *testing.T, q int, s string, lo, hi int) int {
	t.Helper()
	v, err := strconv.Atoi(s)
	if err != nil || v < lo || v > hi || strconv.Itoa(v) != s {
		t.Errorf("q%d: %q not an integer in [%d, %d]", q, s, lo, hi)
	}
	return v
}

// dateIn checks a YYYY-MM-DD date in [lo, hi]; firstOf requires day 1.
func dateIn(t *testing.T, q int, s, lo, hi string, firstOf bool) {
	t.Helper()
	d, err := time.Parse(time.DateOnly, s)
	if err != nil || !dateRE.MatchString(s) || s < lo || s > hi || (firstOf && d.Day() != 1) {
		t.Errorf("q%d: date %q not in [%s, %s] (first of month %v)", q, s, lo, hi, firstOf)
	}
}

func isNation(s string) (int, bool) {
	for i, n := range qNations {
		if n.Name == s {
			return i, true
		}
	}
	return 0, false
}

func isType(s string, syllables int) bool {
	for i := 0; i < 150; i++ {
		s1, s2, s3 := qType(i)
		full := []string{s1, s2, s3}
		if strings.Join(full[:syllables], " ") == s {
			return true
		}
	}
	return false
}

// checkParams checks one query's parameter values against the §3 ranges.
func checkParams(t *testing.T, q int, p []string, sf float64) {
	t.Helper()
	if len(p) != wantPlaceholders[q-1] {
		t.Fatalf("q%d: %d values %q, want %d", q, len(p), p, wantPlaceholders[q-1])
	}
	switch q {
	case 1:
		intIn(t, q, p[0], 60, 120)
	case 2:
		intIn(t, q, p[0], 1, 50)
		if !slices.Contains(qTypeSyllable3[:], p[1]) {
			t.Errorf("q2 type %q is not a last syllable", p[1])
		}
		if !slices.Contains(qRegions[:], p[2]) {
			t.Errorf("q2 region %q", p[2])
		}
	case 3:
		if !slices.Contains(qSegments[:], p[0]) {
			t.Errorf("q3 segment %q", p[0])
		}
		dateIn(t, q, p[1], "1995-03-01", "1995-03-31", false)
	case 4, 15:
		dateIn(t, q, p[0], "1993-01-01", "1997-10-01", true)
	case 5:
		if !slices.Contains(qRegions[:], p[0]) {
			t.Errorf("q5 region %q", p[0])
		}
		dateIn(t, q, p[1], "1993-01-01", "1997-01-01", true)
		if !strings.HasSuffix(p[1], "-01-01") {
			t.Errorf("q5 date %q", p[1])
		}
	case 6:
		dateIn(t, q, p[0], "1993-01-01", "1997-01-01", true)
		if !strings.HasSuffix(p[0], "-01-01") {
			t.Errorf("q6 date %q", p[0])
		}
		if !regexp.MustCompile(`^0\.0[2-9]$`).MatchString(p[1]) {
			t.Errorf("q6 discount %q", p[1])
		}
		intIn(t, q, p[2], 24, 25)
	case 7:
		_, ok1 := isNation(p[0])
		_, ok2 := isNation(p[1])
		if !ok1 || !ok2 || p[0] == p[1] {
			t.Errorf("q7 nations %q", p)
		}
	case 8:
		n, ok := isNation(p[0])
		if !ok || p[1] != qRegions[qNations[n].Region] {
			t.Errorf("q8 nation/region %q", p[:2])
		}
		if !isType(p[2], 3) {
			t.Errorf("q8 type %q", p[2])
		}
	case 9:
		if !slices.Contains(qColors[:], p[0]) {
			t.Errorf("q9 color %q", p[0])
		}
	case 10:
		dateIn(t, q, p[0], "1993-02-01", "1995-01-01", true)
	case 11:
		if _, ok := isNation(p[0]); !ok {
			t.Errorf("q11 nation %q", p[0])
		}
		if p[1] != Q11Fraction(sf) {
			t.Errorf("q11 fraction %q at SF %v", p[1], sf)
		}
	case 12:
		if !slices.Contains(qModes[:], p[0]) || !slices.Contains(qModes[:], p[1]) || p[0] == p[1] {
			t.Errorf("q12 modes %q", p[:2])
		}
		dateIn(t, q, p[2], "1993-01-01", "1997-01-01", true)
		if !strings.HasSuffix(p[2], "-01-01") {
			t.Errorf("q12 date %q", p[2])
		}
	case 13:
		if !slices.Contains(qQ13Word1[:], p[0]) || !slices.Contains(qQ13Word2[:], p[1]) {
			t.Errorf("q13 words %q", p)
		}
	case 14:
		dateIn(t, q, p[0], "1993-01-01", "1997-12-01", true)
	case 16:
		if !brandRE.MatchString(p[0]) || !isType(p[1], 2) {
			t.Errorf("q16 brand/type %q", p[:2])
		}
		seen := map[string]bool{}
		for _, s := range p[2:] {
			intIn(t, q, s, 1, 50)
			if seen[s] {
				t.Errorf("q16 sizes repeat: %q", p[2:])
			}
			seen[s] = true
		}
	case 17:
		ok := false
		for _, a := range qContainerSyllable1 {
			for _, b := range qContainerSyllable2 {
				ok = ok || p[1] == a+" "+b
			}
		}
		if !brandRE.MatchString(p[0]) || !ok {
			t.Errorf("q17 %q", p)
		}
	case 18:
		intIn(t, q, p[0], 312, 315)
	case 19:
		for _, b := range p[:3] {
			if !brandRE.MatchString(b) {
				t.Errorf("q19 brand %q", b)
			}
		}
		intIn(t, q, p[3], 1, 10)
		intIn(t, q, p[4], 10, 20)
		intIn(t, q, p[5], 20, 30)
	case 20:
		if !slices.Contains(qColors[:], p[0]) {
			t.Errorf("q20 color %q", p[0])
		}
		dateIn(t, q, p[1], "1993-01-01", "1997-01-01", true)
		if _, ok := isNation(p[2]); !ok {
			t.Errorf("q20 nation %q", p[2])
		}
	case 21:
		if _, ok := isNation(p[0]); !ok {
			t.Errorf("q21 nation %q", p[0])
		}
	case 22:
		seen := map[string]bool{}
		for _, s := range p {
			intIn(t, q, s, 10, 34)
			if seen[s] {
				t.Errorf("q22 codes repeat: %q", p)
			}
			seen[s] = true
		}
	}
}

// Over many seeds every parameter stays in its range and every value of the
// range occurs (the end points included).
func TestQueryParamsRanges(t *testing.T) {
	t.Parallel()
	const seeds = 5000
	distinct := map[string]map[string]bool{}
	note := func(q, i int, v string) {
		k := fmt.Sprintf("q%d/%d", q, i+1)
		if distinct[k] == nil {
			distinct[k] = map[string]bool{}
		}
		distinct[k][v] = true
	}
	for s := int64(0); s < seeds; s++ {
		seed := 1000000000 + s*104729 // spread like mmddhhmmss seeds
		for q := 1; q <= 22; q++ {
			p := QueryParams(q, seed, 1)
			checkParams(t, q, p, 1)
			if t.Failed() {
				t.Fatalf("seed %d q%d: %q", seed, q, p)
			}
			for i, v := range p {
				note(q, i, v)
			}
		}
	}
	want := map[string]int{
		"q1/1": 61, "q2/1": 50, "q2/2": 5, "q2/3": 5, "q3/1": 5, "q3/2": 31, "q4/1": 58,
		"q5/1": 5, "q5/2": 5, "q6/1": 5, "q6/2": 8, "q6/3": 2, "q7/1": 25, "q7/2": 25,
		"q8/1": 25, "q8/2": 5, "q8/3": 150, "q9/1": 92, "q10/1": 24, "q11/1": 25, "q11/2": 1,
		"q12/1": 7, "q12/2": 7, "q12/3": 5, "q13/1": 4, "q13/2": 4, "q14/1": 60, "q15/1": 58,
		"q16/1": 25, "q16/2": 30, "q16/3": 50, "q17/1": 25, "q17/2": 40, "q18/1": 4,
		"q19/1": 25, "q19/2": 25, "q19/3": 25, "q19/4": 10, "q19/5": 11, "q19/6": 11,
		"q20/1": 92, "q20/2": 5, "q20/3": 25, "q21/1": 25, "q22/1": 25,
	}
	for k, n := range want {
		if got := len(distinct[k]); got != n {
			t.Errorf("%s: %d distinct values over %d seeds, want %d", k, got, seeds, n)
		}
	}
}

func TestQueryParamsDeterministic(t *testing.T) {
	t.Parallel()
	for q := 1; q <= 22; q++ {
		a := QueryParams(q, 1107123456, 10)
		b := QueryParams(q, 1107123456, 10)
		if !slices.Equal(a, b) {
			t.Errorf("q%d: %q then %q for the same seed", q, a, b)
		}
		// Reducing the seed modulo 2^31−1, as documented.
		if c := QueryParams(q, 1107123456+qgenModulus, 10); !slices.Equal(a, c) {
			t.Errorf("q%d: seed not reduced modulo 2^31-1", q)
		}
		// A stream with a neighbouring seed gets different parameters for
		// most queries; over 20 seeds every query must vary.
		varies := false
		for s := int64(1); s <= 20 && !varies; s++ {
			varies = !slices.Equal(a, QueryParams(q, 1107123456+s, 10))
		}
		if !varies && q != 11 {
			t.Errorf("q%d: same parameters for 21 seeds", q)
		}
	}
	// Seed 0 would stall qgen's generator; it must still give valid,
	// distinct Q7 nations (and terminate).
	for q := 1; q <= 22; q++ {
		checkParams(t, q, QueryParams(q, 0, 1), 1)
		checkParams(t, q, QueryParams(q, -5, 1), 1)
	}
}

// The streams are qgen's: stream q starts at seed × 16807^q mod 2^31−1, and
// UnifInt scales the new seed to the range.
func TestQgenStreams(t *testing.T) {
	t.Parallel()
	r := newQueryRand(1, 0)
	for _, want := range []int64{16807, 282475249, 1622650073, 984943658, 1144108930} { // Park–Miller from 1
		r.next()
		if r.seed != want {
			t.Fatalf("LCG step gives %d, want %d", r.seed, want)
		}
	}
	// After 10,000 steps from 1 the minimal standard generator is at 1043618065.
	r = newQueryRand(1, 0)
	for i := 0; i < 10000; i++ {
		r.next()
	}
	if r.seed != 1043618065 {
		t.Errorf("10,000th value %d, want 1043618065", r.seed)
	}
	// Query q's stream starts q steps after the seed.
	a, b := newQueryRand(77, 5), newQueryRand(77, 0)
	for i := 0; i < 5; i++ {
		b.next()
	}
	if a.seed != b.seed {
		t.Error("query stream is not seed × 16807^q")
	}
	// UnifInt: seed 16807 / (2^31−1) × 61 = 0.000477 → 60 for [60, 120].
	r = newQueryRand(1, 0)
	if v := r.unifInt(60, 120); v != 60 {
		t.Errorf("unifInt = %d", v)
	}
	// Q1 at seed s: its stream's first draw.
	first := int64(282475249) // 1 × 16807² mod 2^31−1
	want := 60 + int64(float64(first)/float64(qgenModulus)*61)
	if got := QueryParams(1, 1, 1)[0]; got != strconv.FormatInt(want, 10) {
		t.Errorf("Q1 seed 1 = %s, want %d", got, want)
	}
}

func TestQ11Fraction(t *testing.T) {
	t.Parallel()
	for sf, want := range map[float64]string{
		1: "0.0001", 10: "0.00001", 100: "0.000001", 1000: "0.0000001", 10000: "0.00000001",
		100000: "0.000000001", 30: "0.00000333333", 300: "0.000000333333", 3000: "0.0000000333333",
		30000: "0.00000000333333", 0.01: "0.01", 0.1: "0.001",
	} {
		if got := Q11Fraction(sf); got != want {
			t.Errorf("SF %v: %s, want %s", sf, got, want)
		}
	}
	for _, sf := range []float64{0.01, 0.3, 1, 3, 7, 10, 30, 100, 300, 1000, 3000, 10000, 30000, 100000} {
		s := Q11Fraction(sf)
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || math.Abs(v*sf/0.0001-1) > 1e-5 {
			t.Errorf("SF %v: %s is not 0.0001/SF", sf, s)
		}
		if strings.ContainsAny(s, "eE") {
			t.Errorf("SF %v: %s in exponent form", sf, s)
		}
		if got := QueryParams(11, 12345, sf)[1]; got != s {
			t.Errorf("QueryParams q11 at SF %v: %s, want %s", sf, got, s)
		}
	}
	if Q11Fraction(0) != "0.0001" || Q11Fraction(-1) != "0.0001" || Q11Fraction(math.NaN()) != "0.0001" {
		t.Error("non-positive SF not treated as 1")
	}
}

// Parameters printed by qgen itself (the reference qgen, versions 3.0.0 and
// 2.17.2, "-- using N as a seed to the RNG") in published query streams:
// QueryParams must give the same values. All 22 queries of seed 81310311 at
// SF 100,000, where qgen prints Q11's fraction as 0.0000000010.
func TestQueryParamsMatchQgen(t *testing.T) {
	t.Parallel()
	stream81310311 := [22]string{
		"88", "38|TIN|EUROPE", "MACHINERY|1995-03-24", "1996-09-01", "ASIA|1994-01-01", "1994-01-01|0.04|24",
		"FRANCE|ALGERIA", "ALGERIA|AFRICA|STANDARD BURNISHED STEEL", "bisque", "1993-06-01",
		"CHINA|0.000000001", "FOB|REG AIR|1993-01-01", "special|packages", "1993-11-01", "1995-03-01",
		"Brand#15|ECONOMY BRUSHED|7|22|42|4|39|1|41|45", "Brand#55|SM PACK", "315",
		"Brand#13|Brand#51|Brand#41|8|19|22", "ivory|1997-01-01|ALGERIA", "SAUDI ARABIA",
		"10|29|12|30|32|18|17",
	}
	for i, want := range stream81310311 {
		if got := strings.Join(QueryParams(i+1, 81310311, 100000), "|"); got != want {
			t.Errorf("seed 81310311 q%d: %s, qgen printed %s", i+1, got, want)
		}
	}
	for _, c := range []struct {
		q    int
		seed int64
		want string
	}{
		{14, 1680793381, "1994-08-01"}, {9, 1680793381, "rose"}, {11, 1680793381, "CANADA|0.0001"},
		{4, 100, "1994-05-01"}, {15, 1554216773, "1993-09-01"}, {4, 1755703766, "1993-08-01"},
		{19, 1489058137, "Brand#42|Brand#43|Brand#33|9|19|28"}, {13, 1438372633, "unusual|deposits"},
	} {
		if got := strings.Join(QueryParams(c.q, c.seed, 1), "|"); got != c.want {
			t.Errorf("seed %d q%d: %s, qgen printed %s", c.seed, c.q, got, c.want)
		}
	}
}
