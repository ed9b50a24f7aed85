package tprocc

import (
	"regexp"
	"slices"
	"strings"
	"testing"
)

func TestIntBounds(t *testing.T) {
	r := NewRand(1, 2)
	seen := map[int]bool{}
	for range 10000 {
		v := r.Int(-3, 3)
		if v < -3 || v > 3 {
			t.Fatalf("Int(-3, 3) = %d", v)
		}
		seen[v] = true
	}
	if len(seen) != 7 {
		t.Errorf("Int(-3, 3) produced only %v", seen)
	}
}

func TestNURandBoundsAndSkew(t *testing.T) {
	cases := []struct {
		name    string
		a, x, y int
	}{
		{"C_LAST", nuA_CLast, 0, 999},
		{"C_ID", nuA_CID, 1, 3000},
		{"OL_I_ID", nuA_OLIID, 1, 100000},
	}
	for _, c := range cases {
		for _, cc := range []int{0, c.a / 3, c.a} { // C anywhere in [0, A]
			r := NewRand(3, uint64(cc))
			span := c.y - c.x + 1
			draws := 50 * span
			counts := make([]int, span)
			for range draws {
				v := r.NURand(c.a, c.x, c.y, cc)
				if v < c.x || v > c.y {
					t.Fatalf("%s: NURand(%d, %d, %d, C=%d) = %d", c.name, c.a, c.x, c.y, cc, v)
				}
				counts[v-c.x]++
			}
			// Skew: the hottest 10% of the values get far more than 10% of
			// the draws (uniform would give 10%).
			slices.Sort(counts)
			hot := 0
			for _, n := range counts[span-span/10:] {
				hot += n
			}
			share := float64(hot) / float64(draws)
			if share < 0.2 {
				t.Errorf("%s C=%d: hottest 10%% of values get %.1f%% of draws, want a clear skew", c.name, cc, 100*share)
			}
			// The coldest values are much rarer than uniform (50 per value),
			// yet most values occur.
			if counts[0] > 25 {
				t.Errorf("%s C=%d: the rarest value drawn %d times, want a clear skew", c.name, cc, counts[0])
			}
			if unseen, _ := slices.BinarySearch(counts, 1); unseen > span/5 {
				t.Errorf("%s C=%d: %d of %d values never drawn", c.name, cc, unseen, span)
			}
		}
	}
}

func TestValidCDelta(t *testing.T) {
	cases := []struct {
		load, run int
		want      bool
	}{
		{0, 65, true}, {65, 0, true}, {0, 64, false}, {0, 119, true}, {0, 120, false},
		{0, 96, false}, {96, 0, false}, {0, 112, false}, {200, 88, false}, {200, 104, false},
		{100, 0, true}, {255, 136, true}, {255, 135, false}, {10, 10, false}, {150, 50, true},
		{150, 55, true}, {150, 54, false}, {150, 38, false},
	}
	for _, c := range cases {
		if got := ValidCDelta(c.load, c.run); got != c.want {
			t.Errorf("ValidCDelta(%d, %d) = %v, want %v", c.load, c.run, got, c.want)
		}
	}
}

func TestRunConstantsAlwaysAdmissible(t *testing.T) {
	for cLoad := 0; cLoad <= 255; cLoad++ {
		for seed := range uint64(20) {
			c := RunConstants(NewRand(seed, uint64(cLoad)), cLoad)
			if !ValidCDelta(cLoad, c.CLast) {
				t.Fatalf("C_LOAD %d: C_RUN %d not admissible", cLoad, c.CLast)
			}
			if c.CLast < 0 || c.CLast > 255 || c.CID < 0 || c.CID > 1023 || c.OLIID < 0 || c.OLIID > 8191 {
				t.Fatalf("constants out of range: %+v", c)
			}
		}
	}
	for seed := range uint64(100) {
		if c := LoadCLast(NewRand(seed, 0)); c < 0 || c > 255 {
			t.Fatalf("C_LOAD %d", c)
		}
	}
}

func TestLastName(t *testing.T) {
	cases := map[int]string{
		0:   "BARBARBAR",
		1:   "BARBAROUGHT",
		40:  "BARPRESBAR",
		371: "PRICALLYOUGHT",
		999: "EINGEINGEING",
		123: "OUGHTABLEPRI",
	}
	for n, want := range cases {
		if got := LastName(n); got != want {
			t.Errorf("LastName(%d) = %q, want %q", n, got, want)
		}
	}
	seen := map[string]bool{}
	for n := range 1000 {
		s := LastName(n)
		if len(s) > 16 || seen[s] {
			t.Fatalf("LastName(%d) = %q: too long for C_LAST or repeated", n, s)
		}
		seen[s] = true
	}
}

func TestStringHelpers(t *testing.T) {
	r := NewRand(5, 5)
	alnumRe := regexp.MustCompile(`^[a-zA-Z0-9]+$`)
	for range 2000 {
		if s := r.AString(nil, 8, 16); len(s) < 8 || len(s) > 16 || !alnumRe.Match(s) {
			t.Fatalf("AString(8, 16) = %q", s)
		}
		if s := r.NString(nil, 16, 16); len(s) != 16 || strings.Trim(string(s), "0123456789") != "" {
			t.Fatalf("NString(16, 16) = %q", s)
		}
		if s := r.Letters(nil, 2); len(s) != 2 || s[0] < 'A' || s[0] > 'Z' || s[1] < 'A' || s[1] > 'Z' {
			t.Fatalf("Letters(2) = %q", s)
		}
		for _, orig := range []bool{false, true} {
			s := string(r.DataWithOriginal([]byte("x"), orig))[1:]
			if len(s) < 26 || len(s) > 50 || strings.Contains(s, "ORIGINAL") != orig {
				t.Fatalf("DataWithOriginal(%v) = %q", orig, s)
			}
		}
	}
}

func TestZip(t *testing.T) {
	r := NewRand(8, 8)
	zipRe := regexp.MustCompile(`^[0-9]{4}11111$`)
	var digits [4][10]int
	const n = 20000
	for range n {
		z := r.Zip(nil)
		if !zipRe.Match(z) {
			t.Fatalf("Zip = %q", z)
		}
		for i := range 4 {
			digits[i][z[i]-'0']++
		}
	}
	// Each of the four positions is a uniform digit (leading zeros included),
	// not a number written left-aligned.
	for i, counts := range digits {
		for d, c := range counts {
			if c < n/10*8/10 || c > n/10*12/10 {
				t.Errorf("position %d: digit %d drawn %d times of %d", i, d, c, n)
			}
		}
	}
}

func TestPerm(t *testing.T) {
	r := NewRand(4, 4)
	p := make([]int, 3000)
	r.Perm(p)
	q := slices.Clone(p)
	slices.Sort(q)
	for i, v := range q {
		if v != i+1 {
			t.Fatalf("Perm is not a permutation of 1..3000: sorted[%d] = %d", i, v)
		}
	}
	fixed := 0
	for i, v := range p {
		if v == i+1 {
			fixed++
		}
	}
	if fixed > 20 {
		t.Errorf("%d fixed points: not shuffled", fixed)
	}
}

func TestSelectorPicksExactly(t *testing.T) {
	r := NewRand(6, 6)
	for _, c := range []struct{ need, of int }{{0, 10}, {10, 10}, {300, 3000}, {10000, 100000}} {
		s := selector{need: c.need, left: c.of}
		got := 0
		for range c.of {
			if s.next(r) {
				got++
			}
		}
		if got != c.need {
			t.Errorf("selector(%d of %d) picked %d", c.need, c.of, got)
		}
	}
	// Uniform: each position is picked about need/of of the time.
	hits := make([]int, 10)
	for range 20000 {
		s := selector{need: 3, left: 10}
		for i := range 10 {
			if s.next(r) {
				hits[i]++
			}
		}
	}
	for i, h := range hits {
		if h < 5400 || h > 6600 {
			t.Errorf("position %d picked %d of 20000 times, want ≈ 6000", i, h)
		}
	}
}
