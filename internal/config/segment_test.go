package config

import (
	"math/big"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func TestParseSegment(t *testing.T) {
	for _, c := range []struct {
		in, from, to, str string
	}{
		{"", "0", "1", "0:1"},
		{"0/1", "0", "1", "0:1"},
		{"0:1", "0", "1", "0:1"},
		{"0/3", "0", "1/3", "0/3"},
		{"2/3", "2/3", "1", "2/3"},
		{"1/3:2/3", "1/3", "2/3", "1/3"},
		{"0:0.5", "0", "1/2", "0/2"},
		{"0.5:1", "1/2", "1", "1/2"},
		{"0.25:0.75", "1/4", "3/4", "1/4:3/4"},
		{"1/3:1", "1/3", "1", "1/3:1"},
		{"2/6:4/6", "1/3", "2/3", "1/3"},
		{" 4/10 ", "2/5", "1/2", "4/10"},
	} {
		s, err := ParseSegment(c.in)
		if err != nil {
			t.Errorf("%q: %v", c.in, err)
			continue
		}
		if ratString(s.From()) != c.from || ratString(s.To()) != c.to || s.String() != c.str {
			t.Errorf("%q: [%s, %s) %q, want [%s, %s) %q", c.in, s.From(), s.To(), s.String(), c.from, c.to, c.str)
		}
		back, err := ParseSegment(s.String())
		if err != nil || back != s {
			t.Errorf("%q: String %q reads back as %v (%v)", c.in, s.String(), back, err)
		}
		if s.IsWhole() != (c.str == "0:1") {
			t.Errorf("%q: IsWhole %v", c.in, s.IsWhole())
		}
	}
	if !Whole().IsWhole() || (Segment{}) != Whole() {
		t.Error("the zero segment is not the whole run")
	}
}

func TestParseSegmentErrors(t *testing.T) {
	for in, want := range map[string]string{
		"3/3":                        "segment 3/3: the index must be below the count (0-based)",
		"0/0":                        "segment 0/0: the count must be at least 1",
		"-1/3":                       "segment -1/3: want I/N with whole numbers",
		"a/3":                        "segment a/3: want I/N with whole numbers",
		"1.5/3":                      "segment 1.5/3: want I/N with whole numbers",
		"3":                          "segment 3: want I/N",
		"0.5":                        "segment 0.5: want I/N",
		"1/2:1/3":                    "segment 1/2:1/3: the start must be below the end",
		"0.5:0.5":                    "the start must be below the end",
		"0:2":                        "segment 0:2: the end must not be beyond 1",
		"1:1":                        "segment 1:1: the start must be below 1",
		"x:1":                        `segment x:1: the start "x" is not a fraction like 1/3 or a decimal like 0.5`,
		"0:":                         `the end "" is not a fraction`,
		"-0.1:1":                     `the start "-0.1" is not a fraction`,
		"0:1/0":                      `the end "1/0" is not a fraction`,
		"0:1e-3":                     `the end "1e-3" is not a fraction`,
		"0:0.0000000000000000000001": "too fine a fraction",
	} {
		_, err := ParseSegment(in)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want %q", in, err, want)
		}
		if err != nil && strings.Contains(err.Error(), "--") {
			t.Errorf("%q: %v names a flag", in, err)
		}
	}
}

// checkPartition asserts that the shares of segs (in order) partition 0..n-1.
func checkPartition(t *testing.T, segs []Segment, n int) {
	t.Helper()
	next := 0
	for _, s := range segs {
		first, count := s.Share(n)
		if first != next || count < 0 {
			t.Fatalf("n=%d: segment %s has share [%d, +%d), want it to start at %d", n, s, first, count, next)
		}
		// The share is what the segment's fractions say, exactly.
		lo := new(big.Rat).Mul(s.From(), big.NewRat(int64(n), 1))
		hi := new(big.Rat).Mul(s.To(), big.NewRat(int64(n), 1))
		if want := new(big.Int).Quo(lo.Num(), lo.Denom()); want.Int64() != int64(first) {
			t.Fatalf("n=%d: segment %s starts at %d, want floor(%s) = %s", n, s, first, lo, want)
		}
		if want := new(big.Int).Quo(hi.Num(), hi.Denom()); want.Int64() != int64(first+count) {
			t.Fatalf("n=%d: segment %s ends at %d, want floor(%s) = %s", n, s, first+count, hi, want)
		}
		next = first + count
	}
	if next != n {
		t.Fatalf("n=%d: the shares end at %d", n, next)
	}
}

func TestShareIndexOfCount(t *testing.T) {
	for parts := 1; parts <= 40; parts++ {
		segs := make([]Segment, parts)
		for i := range segs {
			var err error
			if segs[i], err = ParseSegment(strings.Join([]string{itoa(i), itoa(parts)}, "/")); err != nil {
				t.Fatal(err)
			}
		}
		for n := 0; n <= 250; n++ {
			checkPartition(t, segs, n)
		}
		for _, n := range []int{1000, 9999, 10000, 123457, 1 << 30} {
			checkPartition(t, segs, n)
		}
		// Equal parts differ by at most one item.
		for _, n := range []int{7, 100, 1001} {
			lo, hi := n, 0
			for _, s := range segs {
				_, c := s.Share(n)
				lo, hi = min(lo, c), max(hi, c)
			}
			if hi-lo > 1 {
				t.Errorf("%d parts of %d: shares from %d to %d", parts, n, lo, hi)
			}
		}
	}
}

func TestShareChainedCuts(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 2000; trial++ {
		// Random cuts of [0, 1) with random denominators, some decimals.
		k := 1 + rng.IntN(6)
		cuts := []*big.Rat{new(big.Rat)}
		for range k {
			d := int64(1 + rng.IntN(1000))
			if rng.IntN(4) == 0 {
				d = 1_000_000
			}
			cuts = append(cuts, big.NewRat(rng.Int64N(d+1), d))
		}
		cuts = append(cuts, big.NewRat(1, 1))
		slices.SortFunc(cuts, func(a, b *big.Rat) int { return a.Cmp(b) })
		var segs []Segment
		for i := 1; i < len(cuts); i++ {
			if cuts[i-1].Cmp(cuts[i]) == 0 {
				continue
			}
			text := ratString(cuts[i-1]) + ":" + ratString(cuts[i])
			s, err := ParseSegment(text)
			if err != nil {
				t.Fatalf("%s: %v", text, err)
			}
			if back, err := ParseSegment(s.String()); err != nil || back != s {
				t.Fatalf("%s: String %q reads back as %v (%v)", text, s, back, err)
			}
			segs = append(segs, s)
		}
		for _, n := range []int{0, 1, 2, 3, 5, 10, 17, 64, 100, 999, 10000, rng.IntN(1 << 20)} {
			checkPartition(t, segs, n)
		}
	}
}

func TestShareWhole(t *testing.T) {
	for _, n := range []int{0, 1, 7, 10000} {
		if f, c := Whole().Share(n); f != 0 || c != n {
			t.Errorf("whole share of %d: %d+%d", n, f, c)
		}
	}
	// ⌊0·3/4⌋ = ⌊1·3/4⌋ = 0: the first of 4 parts of 3 items is empty.
	s, _ := ParseSegment("0/4")
	if f, c := s.Share(3); f != 0 || c != 0 {
		t.Errorf("0/4 of 3: %d+%d, want an empty share at 0", f, c)
	}
}

func TestSegmentParts(t *testing.T) {
	for in, want := range map[string][3]int64{"": {0, 1, 1}, "2/5": {2, 5, 1}, "0.2:0.4": {1, 5, 1}, "1/3:1": {0, 0, 0}, "1/6:1/3": {1, 6, 1}} {
		s, err := ParseSegment(in)
		if err != nil {
			t.Fatal(err)
		}
		i, n, ok := s.Parts()
		if got := [3]int64{i, n, b2i(ok)}; got != want {
			t.Errorf("%q: Parts %v, want %v", in, got, want)
		}
	}
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

func itoa(i int) string { return big.NewInt(int64(i)).String() }
