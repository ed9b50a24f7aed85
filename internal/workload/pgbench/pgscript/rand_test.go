package pgscript

import (
	"math"
	"testing"
)

// TestPermute checks the documented contract: a bijection of [0, size)
// that depends on the seed, and val is taken modulo size.
func TestPermute(t *testing.T) {
	t.Parallel()
	for _, size := range []int64{1, 2, 3, 4, 5, 7, 8, 31, 64, 100, 1000} {
		for _, seed := range []int64{0, 1, -1, 12345} {
			seen := make([]bool, size)
			for v := int64(0); v < size; v++ {
				p := Permute(v, size, seed)
				if p < 0 || p >= size || seen[p] {
					t.Fatalf("permute(%d, %d, %d) = %d: not a bijection of [0, %d)", v, size, seed, p, size)
				}
				seen[p] = true
				if q := Permute(v+size, size, seed); q != p {
					t.Fatalf("permute(%d) = %d but permute(%d) = %d", v, p, v+size, q)
				}
			}
		}
	}
	same := 0
	for v := int64(0); v < 1000; v++ {
		if Permute(v, 1000, 1) == Permute(v, 1000, 2) {
			same++
		}
	}
	if same > 50 {
		t.Errorf("%d of 1000 values permute alike under two seeds", same)
	}
}

func TestDistributions(t *testing.T) {
	t.Parallel()
	r := NewRand(42)
	const n = 20000
	var low [4]int
	for i := 0; i < n; i++ {
		for k, v := range []int64{
			r.Uniform(1, 100), r.Exponential(1, 100, 5), r.Gaussian(1, 100, 2.5), r.Zipfian(1, 100, 1.5),
		} {
			if v < 1 || v > 100 {
				t.Fatalf("distribution %d drew %d out of [1, 100]", k, v)
			}
			if v <= 10 {
				low[k]++
			}
		}
	}
	// shares of [1, 10]: uniform 10 %; exponential with parameter 5:
	// 1 - exp(-0.5) = 39 %; gaussian: about 4 %; zipfian s = 1.5: most.
	if low[0] < n*8/100 || low[0] > n*12/100 {
		t.Errorf("uniform: %d of %d in [1, 10]", low[0], n)
	}
	if low[1] < n*35/100 || low[1] > n*43/100 {
		t.Errorf("exponential: %d of %d in [1, 10]", low[1], n)
	}
	if low[2] > n*8/100 {
		t.Errorf("gaussian: %d of %d in [1, 10]", low[2], n)
	}
	if low[3] < n*60/100 {
		t.Errorf("zipfian: %d of %d in [1, 10]", low[3], n)
	}
	f := r.Float64()
	if f < 0 || f >= 1 || f != math.Ldexp(math.Floor(math.Ldexp(f, 52)), -52) {
		t.Errorf("Float64 %v is not a multiple of 2^-52 in [0, 1)", f)
	}
}

// TestHashSeeds: the seed changes the hash, and hash_fnv1a of 0 with seed 0
// is the FNV-1a of eight zero bytes.
func TestHashSeeds(t *testing.T) {
	t.Parallel()
	h := uint64(fnvOffsetBasis)
	for i := 0; i < 8; i++ {
		h *= fnvPrime
	}
	if got := HashFNV1a(0, 0); got != int64(h) {
		t.Errorf("HashFNV1a(0, 0) = %d, want %d", got, int64(h))
	}
	if HashFNV1a(1, 1) == HashFNV1a(1, 2) || HashMurmur2(1, 1) == HashMurmur2(1, 2) {
		t.Error("the seed does not change the hash")
	}
}
