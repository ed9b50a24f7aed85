package tprocc

import (
	"math/rand/v2"
)

// Rand is a uniform random source with the spec's helpers. It is not safe for
// concurrent use: every loader worker and every VU owns one.
type Rand struct {
	r *rand.Rand
}

// NewRand returns a deterministic source for (seed, stream): the same pair
// always yields the same sequence, which is what makes loads reproducible and
// splittable across workers.
func NewRand(seed, stream uint64) *Rand {
	return &Rand{r: rand.New(rand.NewPCG(seed, stream))}
}

// Int returns a uniform integer in [lo, hi], both inclusive (the spec's
// "random within [x .. y]").
func (r *Rand) Int(lo, hi int) int {
	return lo + r.r.IntN(hi-lo+1)
}

// Float01 returns a uniform float in [0, 1).
func (r *Rand) Float01() float64 { return r.r.Float64() }

// Perm returns a random permutation of 1..n into p (len(p) must be n).
func (r *Rand) Perm(p []int) {
	for i := range p {
		p[i] = i + 1
	}
	r.r.Shuffle(len(p), func(i, j int) { p[i], p[j] = p[j], p[i] })
}

// NURand is the spec's non-uniform random [2.1.6]:
// (((random(0, A) | random(x, y)) + C) mod (y − x + 1)) + x.
func (r *Rand) NURand(a, x, y, c int) int {
	return (((r.Int(0, a) | r.Int(x, y)) + c) % (y - x + 1)) + x
}

// The A values of NURand per field [2.1.6].
const (
	nuA_CLast = 255
	nuA_CID   = 1023
	nuA_OLIID = 8191
)

// Constants are the run-time C values of NURand, one per field, shared by every
// terminal for the whole run.
type Constants struct {
	CLast int // in [0, 255]
	CID   int // in [0, 1023]
	OLIID int // in [0, 8191]
}

// ValidCDelta reports whether C_RUN may be used with a database loaded with
// C_LOAD: |C_LOAD − C_RUN| must be in [65, 119] and not 96 or 112 [2.1.6.1].
func ValidCDelta(cLoad, cRun int) bool {
	d := cLoad - cRun
	if d < 0 {
		d = -d
	}
	return d >= 65 && d <= 119 && d != 96 && d != 112
}

// LoadCLast picks C_LOAD for a new database.
func LoadCLast(r *Rand) int { return r.Int(0, nuA_CLast) }

// RunConstants picks the run's C values; C_RUN for last names is redrawn until
// its distance from the database's C_LOAD is admissible. Every C_LOAD in
// [0, 255] has admissible partners, so the loop ends.
func RunConstants(r *Rand, cLoad int) Constants {
	c := Constants{CID: r.Int(0, nuA_CID), OLIID: r.Int(0, nuA_OLIID)}
	for {
		c.CLast = r.Int(0, nuA_CLast)
		if ValidCDelta(cLoad, c.CLast) {
			return c
		}
	}
}

var syllables = [10]string{"BAR", "OUGHT", "ABLE", "PRI", "PRES", "ESE", "ANTI", "CALLY", "ATION", "EING"}

// lastNames[n] is the C_LAST for number n in [0, 999]: the syllables of its
// three decimal digits [4.3.2.3]. Computed once: the transactions look names
// up without building strings.
var lastNames = func() (t [1000]string) {
	for n := range t {
		t[n] = syllables[n/100] + syllables[(n/10)%10] + syllables[n%10]
	}
	return t
}()

// LastName returns the C_LAST for n in [0, 999].
func LastName(n int) string { return lastNames[n] }

const alnum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

// AString appends a random alphanumeric string with length in [lo, hi].
func (r *Rand) AString(dst []byte, lo, hi int) []byte {
	n := r.Int(lo, hi)
	for i := 0; i < n; i++ {
		dst = append(dst, alnum[r.r.IntN(len(alnum))])
	}
	return dst
}

// NString appends a random string of digits with length in [lo, hi].
func (r *Rand) NString(dst []byte, lo, hi int) []byte {
	n := r.Int(lo, hi)
	for i := 0; i < n; i++ {
		dst = append(dst, byte('0'+r.r.IntN(10)))
	}
	return dst
}

// Letters appends n random upper-case letters (STATE fields).
func (r *Rand) Letters(dst []byte, n int) []byte {
	for i := 0; i < n; i++ {
		dst = append(dst, byte('A'+r.r.IntN(26)))
	}
	return dst
}

// Zip appends a zip code: 4 random digits (leading zeros kept) then "11111".
func (r *Rand) Zip(dst []byte) []byte {
	for i := 0; i < 4; i++ {
		dst = append(dst, byte('0'+r.r.IntN(10)))
	}
	return append(dst, "11111"...)
}

// DataWithOriginal appends a random a-string of length [26, 50]; when original
// is true, "ORIGINAL" overwrites 8 consecutive characters at a random position.
func (r *Rand) DataWithOriginal(dst []byte, original bool) []byte {
	start := len(dst)
	dst = r.AString(dst, 26, 50)
	if original {
		n := len(dst) - start
		pos := start + r.Int(0, n-8)
		copy(dst[pos:], "ORIGINAL")
	}
	return dst
}
