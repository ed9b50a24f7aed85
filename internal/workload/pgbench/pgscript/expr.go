package pgscript

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// op is an operator or function of the expression language.
type op uint8

const (
	opAdd op = iota + 1
	opSub
	opMul
	opDiv
	opMod
	opEq
	opNe
	opLe
	opLt
	opBitAnd
	opBitOr
	opBitXor
	opShl
	opShr
	opAnd
	opOr
	opNot
	opIs
	opCase
	opAbs
	opDebug
	opDouble
	opExp
	opGreatest
	opHashFNV1a
	opHashMurmur2
	opInt
	opLeast
	opLn
	opPermute
	opPi
	opPow
	opRandom
	opRandomExponential
	opRandomGaussian
	opRandomZipfian
	opSqrt
)

// Argument counts of functions that vary.
const (
	argsVariadic = -1 // least, greatest: one or more
	argsSeeded   = -2 // hash*: the seed (last argument) defaults to :default_seed
)

// functions are the callable names (case-insensitive), their operator and
// argument count; a seeded function takes one argument fewer than listed
// when the seed is left out.
var functions = map[string]struct {
	op    op
	nargs int
}{
	"abs":                {opAbs, 1},
	"debug":              {opDebug, 1},
	"double":             {opDouble, 1},
	"exp":                {opExp, 1},
	"greatest":           {opGreatest, argsVariadic},
	"hash":               {opHashMurmur2, 2},
	"hash_fnv1a":         {opHashFNV1a, 2},
	"hash_murmur2":       {opHashMurmur2, 2},
	"int":                {opInt, 1},
	"least":              {opLeast, argsVariadic},
	"ln":                 {opLn, 1},
	"mod":                {opMod, 2},
	"permute":            {opPermute, 3},
	"pi":                 {opPi, 0},
	"pow":                {opPow, 2},
	"power":              {opPow, 2},
	"random":             {opRandom, 2},
	"random_exponential": {opRandomExponential, 3},
	"random_gaussian":    {opRandomGaussian, 3},
	"random_zipfian":     {opRandomZipfian, 3},
	"sqrt":               {opSqrt, 1},
}

// seeded lists the functions whose last argument is an optional seed.
func seeded(o op) bool { return o == opHashFNV1a || o == opHashMurmur2 || o == opPermute }

// Expr is a parsed expression.
type Expr struct {
	root *node
	src  string
}

// String returns the expression's source text.
func (e *Expr) String() string { return e.src }

// node is one node of an expression tree: a constant, a variable or an
// operator applied to arguments.
type node struct {
	op    op     // 0 for a leaf
	val   Value  // constant, when op == 0 and name == ""
	name  string // variable, when op == 0
	args  []*node
	isVar bool
}

// Parsing limits of pgbench and of the double parameters of the random
// functions.
const (
	minGaussianParam = 2.0
	minZipfianParam  = 1.001
	maxZipfianParam  = 1000.0
	maxFuncArgs      = 16
)

// ParseExpr parses the expression language of \set and \if.
func ParseExpr(src string) (*Expr, error) {
	toks, err := lexExpr(src)
	if err != nil {
		return nil, err
	}
	p := &exprParser{toks: toks, src: src}
	root, err := p.parse(1)
	if err != nil {
		return nil, err
	}
	if t := p.peek(); t.kind != tEOF {
		return nil, p.errAt(t, "syntax error")
	}
	return &Expr{root: root, src: src}, nil
}

type tokKind uint8

const (
	tEOF tokKind = iota
	tInt
	tMaxIntPlusOne // 9223372036854775808, valid only after a unary minus
	tDouble
	tVar
	tIdent
	tOp      // punctuation and operators, text in s
	tKeyword // and, or, not, is, isnull, notnull, null, true, false, case, when, then, else, end (lower case in s)
)

type token struct {
	kind tokKind
	s    string
	i    int64
	f    float64
	pos  int // byte offset in the source
}

var keywords = map[string]bool{
	"and": true, "or": true, "not": true, "is": true, "isnull": true, "notnull": true,
	"null": true, "true": true, "false": true, "case": true, "when": true, "then": true,
	"else": true, "end": true,
}

func isAlpha(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c >= 0x80
}
func isDigit(c byte) bool { return c >= '0' && c <= '9' }
func isAlnum(c byte) bool { return isAlpha(c) || isDigit(c) }

// ExprError is a syntax error in an expression, at a byte offset.
type ExprError struct {
	Pos int
	Msg string
}

func (e *ExprError) Error() string { return fmt.Sprintf("%s at column %d", e.Msg, e.Pos+1) }

func lexExpr(src string) ([]token, error) {
	var toks []token
	i := 0
	for i < len(src) {
		c := src[i]
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v' || c == '\n':
			i++
		case c == ':' && i+1 < len(src) && isAlnum(src[i+1]):
			j := i + 1
			for j < len(src) && isAlnum(src[j]) {
				j++
			}
			toks = append(toks, token{kind: tVar, s: src[i+1 : j], pos: i})
			i = j
		case isDigit(c) || c == '.' && i+1 < len(src) && isDigit(src[i+1]):
			j := i
			for j < len(src) && isDigit(src[j]) {
				j++
			}
			isFloat := false
			if j < len(src) && src[j] == '.' {
				isFloat = true
				j++
				for j < len(src) && isDigit(src[j]) {
					j++
				}
			}
			if j < len(src) && (src[j] == 'e' || src[j] == 'E') {
				k := j + 1
				if k < len(src) && (src[k] == '+' || src[k] == '-') {
					k++
				}
				if k < len(src) && isDigit(src[k]) {
					for k < len(src) && isDigit(src[k]) {
						k++
					}
					isFloat = true
					j = k
				}
			}
			text := src[i:j]
			if isFloat {
				f, err := strconv.ParseFloat(text, 64)
				if err != nil || math.IsInf(f, 0) {
					return nil, &ExprError{i, fmt.Sprintf("double constant overflow %q", text)}
				}
				toks = append(toks, token{kind: tDouble, f: f, s: text, pos: i})
			} else if text == "9223372036854775808" {
				toks = append(toks, token{kind: tMaxIntPlusOne, s: text, pos: i})
			} else {
				n, err := strconv.ParseInt(text, 10, 64)
				if err != nil {
					return nil, &ExprError{i, fmt.Sprintf("bigint constant overflow %q", text)}
				}
				toks = append(toks, token{kind: tInt, i: n, s: text, pos: i})
			}
			i = j
		case isAlpha(c):
			j := i
			for j < len(src) && isAlnum(src[j]) {
				j++
			}
			word := src[i:j]
			if lw := strings.ToLower(word); keywords[lw] {
				toks = append(toks, token{kind: tKeyword, s: lw, pos: i})
			} else {
				toks = append(toks, token{kind: tIdent, s: word, pos: i})
			}
			i = j
		default:
			two := ""
			if i+1 < len(src) {
				two = src[i : i+2]
			}
			switch two {
			case "<>", "!=", "<=", ">=", "<<", ">>":
				if two == "!=" {
					two = "<>"
				}
				toks = append(toks, token{kind: tOp, s: two, pos: i})
				i += 2
				continue
			}
			if strings.IndexByte("+-*/%(),=<>|&#~", c) < 0 {
				return nil, &ExprError{i, fmt.Sprintf("unexpected character %q", c)}
			}
			toks = append(toks, token{kind: tOp, s: string(c), pos: i})
			i++
		}
	}
	return append(toks, token{kind: tEOF, pos: len(src)}), nil
}

type exprParser struct {
	toks []token
	at   int
	src  string
}

func (p *exprParser) peek() token { return p.toks[p.at] }
func (p *exprParser) next() token {
	t := p.toks[p.at]
	if t.kind != tEOF {
		p.at++
	}
	return t
}

func (p *exprParser) errAt(t token, msg string) error {
	if t.kind == tEOF {
		return &ExprError{t.pos, msg + " (unexpected end of expression)"}
	}
	return &ExprError{t.pos, fmt.Sprintf("%s near %q", msg, p.src[t.pos:])}
}

// Precedence levels, lowest first, as in PostgreSQL's SQL grammar.
const (
	precOr = iota + 1
	precAnd
	precNot
	precIs
	precCmp
	precBit
	precAdd
	precMul
	precUnary
)

// binary returns the precedence and operator of a binary operator token.
func binary(t token) (int, op, bool) {
	switch t.kind {
	case tKeyword:
		switch t.s {
		case "or":
			return precOr, opOr, true
		case "and":
			return precAnd, opAnd, true
		}
	case tOp:
		switch t.s {
		case "=", "<>", "<", "<=", ">", ">=":
			return precCmp, 0, true
		case "|":
			return precBit, opBitOr, true
		case "&":
			return precBit, opBitAnd, true
		case "#":
			return precBit, opBitXor, true
		case "<<":
			return precBit, opShl, true
		case ">>":
			return precBit, opShr, true
		case "+":
			return precAdd, opAdd, true
		case "-":
			return precAdd, opSub, true
		case "*":
			return precMul, opMul, true
		case "/":
			return precMul, opDiv, true
		case "%":
			return precMul, opMod, true
		}
	}
	return 0, 0, false
}

func fn(o op, args ...*node) *node { return &node{op: o, args: args} }
func constant(v Value) *node       { return &node{val: v} }

// comparison builds a comparison node; > and >= swap their operands.
func comparison(s string, l, r *node) *node {
	switch s {
	case "=":
		return fn(opEq, l, r)
	case "<>":
		return fn(opNe, l, r)
	case "<":
		return fn(opLt, l, r)
	case "<=":
		return fn(opLe, l, r)
	case ">":
		return fn(opLt, r, l)
	}
	return fn(opLe, r, l) // >=
}

// parse parses an expression whose binary operators bind at least as
// tightly as minPrec.
func (p *exprParser) parse(minPrec int) (*node, error) {
	left, err := p.prefix()
	if err != nil {
		return nil, err
	}
	for {
		t := p.peek()
		if t.kind == tKeyword && (t.s == "is" || t.s == "isnull" || t.s == "notnull") {
			if precIs < minPrec {
				return left, nil
			}
			if left, err = p.isTest(left); err != nil {
				return nil, err
			}
			// IS is not associative: "a is null is null" is an error.
			if n := p.peek(); n.kind == tKeyword && (n.s == "is" || n.s == "isnull" || n.s == "notnull") {
				return nil, p.errAt(n, "syntax error")
			}
			continue
		}
		prec, o, ok := binary(t)
		if !ok || prec < minPrec {
			return left, nil
		}
		p.next()
		right, err := p.parse(prec + 1)
		if err != nil {
			return nil, err
		}
		if prec == precCmp {
			left = comparison(t.s, left, right)
			// comparisons are not associative: "a < b < c" is an error.
			if n := p.peek(); n.kind == tOp {
				if np, _, ok := binary(n); ok && np == precCmp {
					return nil, p.errAt(n, "syntax error")
				}
			}
			continue
		}
		left = fn(o, left, right)
	}
}

// isTest parses the IS forms that follow an operand.
func (p *exprParser) isTest(left *node) (*node, error) {
	t := p.next()
	switch t.s {
	case "isnull":
		return fn(opIs, left, constant(NullValue())), nil
	case "notnull":
		return fn(opNot, fn(opIs, left, constant(NullValue()))), nil
	}
	negate := false
	n := p.next()
	if n.kind == tKeyword && n.s == "not" {
		negate = true
		n = p.next()
	}
	var target Value
	switch {
	case n.kind == tKeyword && n.s == "null":
		target = NullValue()
	case n.kind == tKeyword && (n.s == "true" || n.s == "false"):
		target = BoolValue(n.s == "true")
	default:
		return nil, p.errAt(n, "syntax error")
	}
	r := fn(opIs, left, constant(target))
	if negate {
		r = fn(opNot, r)
	}
	return r, nil
}

func (p *exprParser) prefix() (*node, error) {
	t := p.next()
	switch t.kind {
	case tInt:
		return constant(IntValue(t.i)), nil
	case tDouble:
		return constant(DoubleValue(t.f)), nil
	case tVar:
		return &node{name: t.s, isVar: true}, nil
	case tIdent:
		return p.call(t)
	case tKeyword:
		switch t.s {
		case "null":
			return constant(NullValue()), nil
		case "true", "false":
			return constant(BoolValue(t.s == "true")), nil
		case "not":
			x, err := p.parse(precNot + 1)
			if err != nil {
				return nil, err
			}
			return fn(opNot, x), nil
		case "case":
			return p.caseExpr()
		}
	case tOp:
		switch t.s {
		case "(":
			x, err := p.parse(1)
			if err != nil {
				return nil, err
			}
			if c := p.next(); c.kind != tOp || c.s != ")" {
				return nil, p.errAt(c, "syntax error, expected \")\"")
			}
			return x, nil
		case "+":
			return p.parse(precUnary)
		case "-":
			if n := p.peek(); n.kind == tMaxIntPlusOne {
				p.next()
				return constant(IntValue(math.MinInt64)), nil
			}
			x, err := p.parse(precUnary)
			if err != nil {
				return nil, err
			}
			return fn(opSub, constant(IntValue(0)), x), nil
		case "~":
			// ~x is -1 # x; it binds like the bitwise operators.
			x, err := p.parse(precBit + 1)
			if err != nil {
				return nil, err
			}
			return fn(opBitXor, constant(IntValue(-1)), x), nil
		}
	case tMaxIntPlusOne:
		return nil, &ExprError{t.pos, fmt.Sprintf("bigint constant overflow %q", t.s)}
	}
	return nil, p.errAt(t, "syntax error")
}

func (p *exprParser) call(name token) (*node, error) {
	f, ok := functions[strings.ToLower(name.s)]
	if !ok {
		return nil, &ExprError{name.pos, fmt.Sprintf("unexpected function name %q", name.s)}
	}
	if t := p.next(); t.kind != tOp || t.s != "(" {
		return nil, p.errAt(t, fmt.Sprintf("syntax error, expected \"(\" after %s", name.s))
	}
	var args []*node
	if t := p.peek(); t.kind == tOp && t.s == ")" {
		p.next()
	} else {
		for {
			a, err := p.parse(1)
			if err != nil {
				return nil, err
			}
			args = append(args, a)
			t := p.next()
			if t.kind == tOp && t.s == ")" {
				break
			}
			if t.kind != tOp || t.s != "," {
				return nil, p.errAt(t, "syntax error, expected \",\" or \")\"")
			}
		}
	}
	n := len(args)
	switch {
	case f.nargs == argsVariadic:
		if n == 0 {
			return nil, &ExprError{name.pos, fmt.Sprintf("%s: at least one argument expected", name.s)}
		}
		if n > maxFuncArgs {
			return nil, &ExprError{name.pos, fmt.Sprintf("%s: too many function arguments, maximum is %d", name.s, maxFuncArgs)}
		}
	case seeded(f.op) && n == f.nargs-1:
		args = append(args, &node{name: "default_seed", isVar: true})
	case n != f.nargs:
		return nil, &ExprError{name.pos, fmt.Sprintf("%s: unexpected number of arguments (%d)", name.s, n)}
	}
	return fn(f.op, args...), nil
}

// caseExpr parses CASE WHEN c THEN v [WHEN ...] [ELSE e] END into a case
// node with arguments c1, v1, c2, v2, ..., e (e is NULL when absent).
func (p *exprParser) caseExpr() (*node, error) {
	var args []*node
	for {
		t := p.next()
		if t.kind != tKeyword || t.s != "when" {
			if len(args) == 0 {
				return nil, p.errAt(t, "syntax error, expected WHEN")
			}
			switch {
			case t.kind == tKeyword && t.s == "end":
				return fn(opCase, append(args, constant(NullValue()))...), nil
			case t.kind == tKeyword && t.s == "else":
				e, err := p.parse(1)
				if err != nil {
					return nil, err
				}
				if t := p.next(); t.kind != tKeyword || t.s != "end" {
					return nil, p.errAt(t, "syntax error, expected END")
				}
				return fn(opCase, append(args, e)...), nil
			}
			return nil, p.errAt(t, "syntax error, expected WHEN, ELSE or END")
		}
		c, err := p.parse(1)
		if err != nil {
			return nil, err
		}
		if t := p.next(); t.kind != tKeyword || t.s != "then" {
			return nil, p.errAt(t, "syntax error, expected THEN")
		}
		v, err := p.parse(1)
		if err != nil {
			return nil, err
		}
		args = append(args, c, v)
	}
}
