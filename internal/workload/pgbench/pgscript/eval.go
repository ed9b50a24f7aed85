package pgscript

import (
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
)

// env is what evaluation reads and draws from: the client's variables and
// its random stream, and where debug() writes.
type env struct {
	vars  *Vars
	rand  *Rand
	debug io.Writer
	where func() string // "script=N,command=M" for debug()
}

// Eval evaluates e with the variables of vars, drawing random numbers from
// r. It is for tests and tools; a Client evaluates its scripts itself.
func (e *Expr) Eval(vars *Vars, r *Rand) (Value, error) {
	return e.root.eval(&env{vars: vars, rand: r})
}

var errDivByZero = errors.New("division by zero")

func (n *node) eval(en *env) (Value, error) {
	switch {
	case n.isVar:
		v, ok, err := en.vars.value(n.name)
		if err != nil {
			return Value{}, err
		}
		if !ok {
			return Value{}, fmt.Errorf("undefined variable %q", n.name)
		}
		return v, nil
	case n.op == 0:
		return n.val, nil
	case n.op == opAnd || n.op == opOr:
		return n.evalLogic(en)
	case n.op == opCase:
		return n.evalCase(en)
	}
	var buf [maxFuncArgs]Value
	args := buf[:len(n.args)]
	hasNull := false
	for i, a := range n.args {
		v, err := a.eval(en)
		if err != nil {
			return Value{}, err
		}
		args[i] = v
		hasNull = hasNull || v.Kind == Null
	}
	if hasNull && n.op != opIs && n.op != opDebug {
		return NullValue(), nil
	}
	return apply(n.op, args, en)
}

// evalLogic evaluates AND and OR lazily, with SQL's NULL rules except that a
// NULL left operand makes the result NULL at once.
func (n *node) evalLogic(en *env) (Value, error) {
	l, err := n.args[0].eval(en)
	if err != nil {
		return Value{}, err
	}
	if l.Kind == Null {
		return NullValue(), nil
	}
	lb, err := l.toBool()
	if err != nil {
		return Value{}, err
	}
	if n.op == opAnd && !lb || n.op == opOr && lb {
		return BoolValue(lb), nil
	}
	r, err := n.args[1].eval(en)
	if err != nil {
		return Value{}, err
	}
	if r.Kind == Null {
		return NullValue(), nil
	}
	rb, err := r.toBool()
	if err != nil {
		return Value{}, err
	}
	return BoolValue(rb), nil
}

func (n *node) evalCase(en *env) (Value, error) {
	last := len(n.args) - 1
	for i := 0; i < last; i += 2 {
		c, err := n.args[i].eval(en)
		if err != nil {
			return Value{}, err
		}
		if c.truth() {
			return n.args[i+1].eval(en)
		}
	}
	return n.args[last].eval(en)
}

func apply(o op, a []Value, en *env) (Value, error) {
	switch o {
	case opAdd, opSub, opMul, opDiv, opMod, opEq, opNe, opLe, opLt:
		return arith(o, a[0], a[1])
	case opBitAnd, opBitOr, opBitXor, opShl, opShr:
		l, err := a[0].toInt()
		if err != nil {
			return Value{}, err
		}
		r, err := a[1].toInt()
		if err != nil {
			return Value{}, err
		}
		switch o {
		case opBitAnd:
			return IntValue(l & r), nil
		case opBitOr:
			return IntValue(l | r), nil
		case opBitXor:
			return IntValue(l ^ r), nil
		case opShl:
			// C leaves shifts by a negative or too large count undefined;
			// x86-64, where pgbench runs, uses the count modulo 64.
			return IntValue(l << (uint64(r) & 63)), nil
		}
		return IntValue(l >> (uint64(r) & 63)), nil
	case opNot:
		b, err := a[0].toBool()
		if err != nil {
			return Value{}, err
		}
		return BoolValue(!b), nil
	case opIs:
		// as pgbench: same type and, for booleans, same value
		same := a[0].Kind == a[1].Kind && (a[0].Kind != Bool || a[0].B == a[1].B)
		return BoolValue(same), nil
	case opPi:
		return DoubleValue(math.Pi), nil
	case opAbs:
		if a[0].Kind == Int {
			if a[0].I < 0 {
				return IntValue(-a[0].I), nil
			}
			return a[0], nil
		}
		if a[0].Kind == Double {
			if a[0].F < 0 {
				return DoubleValue(-a[0].F), nil
			}
			return a[0], nil
		}
		return Value{}, fmt.Errorf("cannot coerce %s to int", a[0].Kind)
	case opDebug:
		if en.debug != nil {
			where := ""
			if en.where != nil {
				where = en.where()
			}
			desc := a[0].Kind.String() + " " + a[0].String()
			if a[0].Kind == Null {
				desc = "null"
			}
			fmt.Fprintf(en.debug, "debug(%s): %s\n", where, desc)
		}
		return a[0], nil
	case opDouble, opSqrt, opLn, opExp:
		d, err := a[0].toDouble()
		if err != nil {
			return Value{}, err
		}
		switch o {
		case opSqrt:
			d = math.Sqrt(d)
		case opLn:
			d = cLog(d)
		case opExp:
			d = cExp(d)
		}
		return DoubleValue(d), nil
	case opInt:
		i, err := a[0].toInt()
		if err != nil {
			return Value{}, err
		}
		return IntValue(i), nil
	case opLeast, opGreatest:
		return extremum(o, a)
	case opRandom, opRandomExponential, opRandomGaussian, opRandomZipfian:
		return random(o, a, en.rand)
	case opPow:
		l, err := a[0].toDouble()
		if err != nil {
			return Value{}, err
		}
		r, err := a[1].toDouble()
		if err != nil {
			return Value{}, err
		}
		return DoubleValue(cPow(l, r)), nil
	case opHashFNV1a, opHashMurmur2:
		v, err := a[0].toInt()
		if err != nil {
			return Value{}, err
		}
		seed, err := a[1].toInt()
		if err != nil {
			return Value{}, err
		}
		if o == opHashFNV1a {
			return IntValue(HashFNV1a(v, uint64(seed))), nil
		}
		return IntValue(HashMurmur2(v, uint64(seed))), nil
	case opPermute:
		var x [3]int64
		for i := range x {
			v, err := a[i].toInt()
			if err != nil {
				return Value{}, err
			}
			x[i] = v
		}
		if x[1] <= 0 {
			return Value{}, errors.New("permute size parameter must be greater than zero")
		}
		return IntValue(Permute(x[0], x[1], x[2])), nil
	}
	return Value{}, fmt.Errorf("internal error: unknown operator %d", o)
}

// arith applies an arithmetic or comparison operator: in doubles when
// either side is a double (except %), else in 64-bit integers with overflow
// checks.
func arith(o op, lv, rv Value) (Value, error) {
	if (lv.Kind == Double || rv.Kind == Double) && o != opMod {
		l, err := lv.toDouble()
		if err != nil {
			return Value{}, err
		}
		r, err := rv.toDouble()
		if err != nil {
			return Value{}, err
		}
		switch o {
		case opAdd:
			return DoubleValue(l + r), nil
		case opSub:
			return DoubleValue(l - r), nil
		case opMul:
			return DoubleValue(l * r), nil
		case opDiv:
			return DoubleValue(l / r), nil
		case opEq:
			return BoolValue(l == r), nil
		case opNe:
			return BoolValue(l != r), nil
		case opLe:
			return BoolValue(l <= r), nil
		}
		return BoolValue(l < r), nil
	}
	l, err := lv.toInt()
	if err != nil {
		return Value{}, err
	}
	r, err := rv.toInt()
	if err != nil {
		return Value{}, err
	}
	switch o {
	case opAdd:
		s := l + r
		if (s > l) != (r > 0) {
			return Value{}, errors.New("bigint add out of range")
		}
		return IntValue(s), nil
	case opSub:
		s := l - r
		if (s < l) != (r > 0) {
			return Value{}, errors.New("bigint sub out of range")
		}
		return IntValue(s), nil
	case opMul:
		if mulOverflows(l, r) {
			return Value{}, errors.New("bigint mul out of range")
		}
		return IntValue(l * r), nil
	case opEq:
		return BoolValue(l == r), nil
	case opNe:
		return BoolValue(l != r), nil
	case opLe:
		return BoolValue(l <= r), nil
	case opLt:
		return BoolValue(l < r), nil
	}
	// division and modulo
	if r == 0 {
		return Value{}, errDivByZero
	}
	if r == -1 {
		if o == opMod {
			return IntValue(0), nil
		}
		if l == math.MinInt64 {
			return Value{}, errors.New("bigint div out of range")
		}
		return IntValue(-l), nil
	}
	if o == opDiv {
		return IntValue(l / r), nil
	}
	return IntValue(l % r), nil
}

func mulOverflows(a, b int64) bool {
	if a == 0 || b == 0 {
		return false
	}
	neg := (a < 0) != (b < 0)
	ua, ub := uint64(a), uint64(b)
	if a < 0 {
		ua = -ua
	}
	if b < 0 {
		ub = -ub
	}
	hi, lo := bits.Mul64(ua, ub)
	if hi != 0 {
		return true
	}
	if neg {
		return lo > 1<<63
	}
	return lo > math.MaxInt64
}

// extremum is least/greatest: in doubles if any argument is a double.
func extremum(o op, a []Value) (Value, error) {
	double := false
	for _, v := range a {
		double = double || v.Kind == Double
	}
	if double {
		m, err := a[0].toDouble()
		if err != nil {
			return Value{}, err
		}
		for _, v := range a[1:] {
			d, err := v.toDouble()
			if err != nil {
				return Value{}, err
			}
			// the comparisons of C's Min/Max macros, for NaN's sake
			if o == opLeast {
				if !(m < d) {
					m = d
				}
			} else if !(m > d) {
				m = d
			}
		}
		return DoubleValue(m), nil
	}
	m, err := a[0].toInt()
	if err != nil {
		return Value{}, err
	}
	for _, v := range a[1:] {
		i, err := v.toInt()
		if err != nil {
			return Value{}, err
		}
		if o == opLeast && i < m || o == opGreatest && i > m {
			m = i
		}
	}
	return IntValue(m), nil
}

func random(o op, a []Value, r *Rand) (Value, error) {
	lo, err := a[0].toInt()
	if err != nil {
		return Value{}, err
	}
	hi, err := a[1].toInt()
	if err != nil {
		return Value{}, err
	}
	if lo > hi {
		return Value{}, errors.New("empty range given to random")
	}
	if span := hi - lo; span < 0 || span == math.MaxInt64 {
		return Value{}, errors.New("random range is too large")
	}
	if o == opRandom {
		return IntValue(r.Uniform(lo, hi)), nil
	}
	param, err := a[2].toDouble()
	if err != nil {
		return Value{}, err
	}
	switch o {
	case opRandomGaussian:
		// NaN parameters are refused too: pgbench would loop forever
		if !(param >= minGaussianParam) {
			return Value{}, fmt.Errorf("gaussian parameter must be at least %f (not %f)", minGaussianParam, param)
		}
		return IntValue(r.Gaussian(lo, hi, param)), nil
	case opRandomZipfian:
		if !(param >= minZipfianParam && param <= maxZipfianParam) {
			return Value{}, fmt.Errorf("zipfian parameter must be in range [%.3f, %.0f] (not %f)", minZipfianParam, maxZipfianParam, param)
		}
		return IntValue(r.Zipfian(lo, hi, param)), nil
	}
	if !(param > 0) {
		return Value{}, fmt.Errorf("exponential parameter must be greater than zero (not %f)", param)
	}
	return IntValue(r.Exponential(lo, hi, param)), nil
}
