package pgscript

import (
	"math"
	"math/bits"
)

// Rand is pgbench's pseudo-random generator: xoroshiro128** over two 64-bit
// words, seeded through splitmix64 (PostgreSQL's pg_prng, which pgbench uses
// since version 15). Its zero value is not usable: call Seed.
type Rand struct{ s0, s1 uint64 }

// NewRand returns a generator seeded with seed.
func NewRand(seed uint64) Rand {
	var r Rand
	r.Seed(seed)
	return r
}

// Seed fills the state with two splitmix64 outputs of seed. An all-zero
// state is a fixed point of the generator, so it is replaced by a fixed
// non-zero one (as PostgreSQL does).
func (r *Rand) Seed(seed uint64) {
	r.s0 = splitmix64(&seed)
	r.s1 = splitmix64(&seed)
	if r.s0 == 0 && r.s1 == 0 {
		r.s0, r.s1 = 0x5851F42D4C957F2D, 0x14057B7EF767814F
	}
}

func splitmix64(state *uint64) uint64 {
	*state += 0x9E3779B97F4A7C15
	z := *state
	z = (z ^ z>>30) * 0xBF58476D1CE4E5B9
	z = (z ^ z>>27) * 0x94D049BB133111EB
	return z ^ z>>31
}

// Uint64 returns the next 64-bit output.
func (r *Rand) Uint64() uint64 {
	s0 := r.s0
	sx := r.s1 ^ s0
	out := bits.RotateLeft64(s0*5, 7) * 9
	r.s0 = bits.RotateLeft64(s0, 24) ^ sx ^ sx<<16
	r.s1 = bits.RotateLeft64(sx, 37)
	return out
}

// uint64Range draws uniformly from [lo, hi] by masking to the bit length of
// the range and rejecting values above it; an empty range gives lo.
func (r *Rand) uint64Range(lo, hi uint64) uint64 {
	if hi <= lo {
		return lo
	}
	span := hi - lo
	shift := uint(bits.LeadingZeros64(span))
	for {
		if v := r.Uint64() >> shift; v <= span {
			return lo + v
		}
	}
}

// Float64 returns a double in [0, 1) made of the top 52 bits of one output.
func (r *Rand) Float64() float64 {
	return math.Ldexp(float64(r.Uint64()>>12), -52)
}

// normal returns a standard normal deviate by the basic Box-Muller
// transform on two uniform draws in (0, 1].
func (r *Rand) normal() float64 {
	u1 := 1.0 - r.Float64()
	u2 := 1.0 - r.Float64()
	return math.Sqrt(-2.0*cLog(u1)) * cSin(2.0*math.Pi*u2)
}

// Uniform is pgbench's random(lo, hi): uniform over [lo, hi]. The caller has
// checked that hi-lo+1 does not overflow.
func (r *Rand) Uniform(lo, hi int64) int64 {
	return lo + int64(r.uint64Range(0, uint64(hi-lo)))
}

// Exponential is random_exponential(lo, hi, param): the density at hi is
// exp(-param) times the density at lo. param must be > 0.
func (r *Rand) Exponential(lo, hi int64, param float64) int64 {
	cut := cExp(-param)
	u := 1.0 - r.Float64() // (0, 1]
	x := -cLog(cut+(1.0-cut)*u) / param
	return lo + int64(float64(hi-lo+1)*x)
}

// Gaussian is random_gaussian(lo, hi, param): a normal deviate redrawn until
// it lies in [-param, param), mapped onto [lo, hi]. param must be >= 2.
func (r *Rand) Gaussian(lo, hi int64, param float64) int64 {
	var z float64
	for {
		z = r.normal()
		if z >= -param && z < param {
			break
		}
	}
	x := (z + param) / (param * 2.0)
	return lo + int64(float64(hi-lo+1)*x)
}

// Zipfian is random_zipfian(lo, hi, s), by the rejection method of Devroye
// (Non-Uniform Random Variate Generation, 1986, pp. 550-551); s in
// [1.001, 1000].
func (r *Rand) Zipfian(lo, hi int64, s float64) int64 {
	return lo - 1 + r.zipf(hi-lo+1, s)
}

func (r *Rand) zipf(n int64, s float64) int64 {
	if n <= 1 {
		return 1
	}
	b := cPow(2.0, s-1.0)
	for {
		u := r.Float64()
		v := r.Float64()
		x := math.Floor(cPow(u, -1.0/(s-1.0)))
		t := cPow(1.0+1.0/x, s-1.0)
		if v*x*(t-1.0)/(b-1.0) <= t/b && x <= float64(n) {
			return int64(x)
		}
	}
}

// Poisson draws a delay whose series averages center (pgbench's throttling
// under --rate): inverse transform sampling, rounded to an integer.
func (r *Rand) Poisson(center float64) int64 {
	u := 1.0 - r.Float64()
	return int64(-cLog(u)*center + 0.5)
}

// FNV-1a and MurmurHash2 (64-bit) constants.
const (
	fnvOffsetBasis = 0xcbf29ce484222325
	fnvPrime       = 0x100000001b3
	mm2Mul         = 0xc6a4a7935bd1e995
	mm2Rot         = 47
	mm2MulTimes8   = 0x35253c9ade8f4ca8 // mm2Mul * 8 (the length of the key) modulo 2^64
)

// HashFNV1a is hash_fnv1a(val, seed): FNV-1a over the eight bytes of val,
// least significant first, with the offset basis xored with seed.
func HashFNV1a(val int64, seed uint64) int64 {
	h := uint64(fnvOffsetBasis) ^ seed
	for i := 0; i < 8; i++ {
		h ^= uint64(val & 0xff)
		h *= fnvPrime
		val >>= 8
	}
	return int64(h)
}

// HashMurmur2 is hash_murmur2(val, seed) (and hash): MurmurHash64A of the
// eight bytes of val.
func HashMurmur2(val int64, seed uint64) int64 {
	h := seed ^ mm2MulTimes8
	k := uint64(val)
	k *= mm2Mul
	k ^= k >> mm2Rot
	k *= mm2Mul
	h ^= k
	h *= mm2Mul
	h ^= h >> mm2Rot
	h *= mm2Mul
	h ^= h >> mm2Rot
	return int64(h)
}

// Permute is permute(val, size, seed): a pseudo-random bijection of
// [0, size) chosen by seed, applied to val modulo size. size must be > 0.
//
// Six rounds each apply, to the lower and to the upper part of the range
// that fits the largest power of two <= size, an odd multiplication, a xor
// and a one-bit rotation (all modulo that power of two, hence bijective),
// then add a random offset modulo size.
func Permute(val, size, seed int64) int64 {
	if size < 2 {
		return 0
	}
	r := NewRand(uint64(seed))
	n := uint64(size)
	v := uint64(val) % n
	width := uint(63 - bits.LeadingZeros64(n)) // bits of the power of two
	mask := uint64(1)<<width - 1
	mix := func(x uint64) uint64 {
		m := r.Uint64()&mask | 1
		xr := r.Uint64() & mask
		if x > mask {
			return x
		}
		x = (x*m ^ xr) & mask
		return (x<<1)&mask | x>>(width-1)
	}
	for round := 0; round < 6; round++ {
		v = mix(v)
		v = n - 1 - mix(n-1-v)
		v = (v + r.uint64Range(0, n-1)) % n
	}
	return int64(v)
}
