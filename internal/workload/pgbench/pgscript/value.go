package pgscript

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Kind is the type of a script value.
type Kind uint8

const (
	Null Kind = iota + 1
	Bool
	Int
	Double
)

func (k Kind) String() string {
	switch k {
	case Null:
		return "null"
	case Bool:
		return "boolean"
	case Int:
		return "int"
	case Double:
		return "double"
	}
	return "none"
}

// Value is a typed value of the expression language: NULL, a boolean, a
// 64-bit integer or a double.
type Value struct {
	Kind Kind
	I    int64
	F    float64
	B    bool
}

// IntValue, DoubleValue, BoolValue and NullValue make values.
func IntValue(i int64) Value      { return Value{Kind: Int, I: i} }
func DoubleValue(f float64) Value { return Value{Kind: Double, F: f} }
func BoolValue(b bool) Value      { return Value{Kind: Bool, B: b} }
func NullValue() Value            { return Value{Kind: Null} }

// String formats v as pgbench substitutes it into SQL: NULL, true/false,
// decimal integers, and doubles with 15 significant digits (C's "%.15g").
func (v Value) String() string {
	switch v.Kind {
	case Null:
		return "NULL"
	case Bool:
		if v.B {
			return "true"
		}
		return "false"
	case Int:
		return strconv.FormatInt(v.I, 10)
	case Double:
		return formatDouble(v.F)
	}
	return ""
}

// formatDouble is printf("%.15g") as PostgreSQL's own snprintf (which
// pgbench uses) writes it: Go's 'g' format chooses the same notation and
// exponent width, and the special values are Infinity, -Infinity and NaN.
func formatDouble(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case math.IsNaN(f):
		return "NaN"
	}
	return strconv.FormatFloat(f, 'g', 15, 64)
}

// truth is the value of v as an \if condition: NULL and zero are false.
func (v Value) truth() bool {
	switch v.Kind {
	case Bool:
		return v.B
	case Int:
		return v.I != 0
	case Double:
		return v.F != 0
	}
	return false
}

func (v Value) toBool() (bool, error) {
	if v.Kind == Bool {
		return v.B, nil
	}
	return false, fmt.Errorf("cannot coerce %s to boolean", v.Kind)
}

// toInt rounds a double half to even (C's rint) and refuses what does not
// fit in 64 bits.
func (v Value) toInt() (int64, error) {
	switch v.Kind {
	case Int:
		return v.I, nil
	case Double:
		d := math.RoundToEven(v.F)
		if math.IsNaN(d) || d < -9223372036854775808.0 || d >= 9223372036854775808.0 {
			return 0, fmt.Errorf("double to int overflow for %f", d)
		}
		return int64(d), nil
	}
	return 0, fmt.Errorf("cannot coerce %s to int", v.Kind)
}

func (v Value) toDouble() (float64, error) {
	switch v.Kind {
	case Double:
		return v.F, nil
	case Int:
		return float64(v.I), nil
	}
	return 0, fmt.Errorf("cannot coerce %s to double", v.Kind)
}

// ParseValue types a variable's text as pgbench does when an expression
// reads it: "null"; a prefix of true/yes/false/no, on/off/of (any case) as a
// boolean; an optionally signed decimal integer (which must fit in 64
// bits); otherwise a double.
func ParseValue(s string) (Value, error) {
	if s == "" {
		return Value{}, fmt.Errorf("empty value")
	}
	prefixOf := func(word string) bool {
		return len(s) <= len(word) && strings.EqualFold(s, word[:len(s)])
	}
	switch {
	case strings.EqualFold(s, "null"):
		return NullValue(), nil
	case prefixOf("true"), prefixOf("yes"), strings.EqualFold(s, "on"):
		return BoolValue(true), nil
	case prefixOf("false"), prefixOf("no"), strings.EqualFold(s, "off"), strings.EqualFold(s, "of"):
		return BoolValue(false), nil
	}
	t := strings.TrimLeft(s, " \t\n\v\f\r")
	if isInteger(t) {
		i, err := strconv.ParseInt(strings.TrimPrefix(t, "+"), 10, 64)
		if err != nil {
			return Value{}, fmt.Errorf("value %q is out of range for type bigint", s)
		}
		return IntValue(i), nil
	}
	f, err := parseCDouble(t)
	if err != nil {
		return Value{}, fmt.Errorf("malformed value %q", s)
	}
	return DoubleValue(f), nil
}

// isInteger matches [-+]?[0-9]+ (leading space already trimmed).
func isInteger(s string) bool {
	if s != "" && (s[0] == '+' || s[0] == '-') {
		s = s[1:]
	}
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// parseCDouble reads a whole string as C's strtod does for the forms that
// matter here (decimal, exponent, inf, nan), refusing overflow.
func parseCDouble(s string) (float64, error) {
	if strings.ContainsRune(s, '_') {
		return 0, fmt.Errorf("invalid")
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, err
	}
	return f, nil
}
