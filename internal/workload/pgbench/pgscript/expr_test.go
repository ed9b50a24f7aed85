package pgscript

import (
	"math"
	"strings"
	"testing"
)

func testVars(t *testing.T) *Vars {
	t.Helper()
	vs := NewVars()
	for name, text := range map[string]string{
		"i": "7", "neg": "-3", "d": "2.5", "t": "yes", "f": "of", "n": "NULL",
		"big": "9223372036854775807", "empty": "", "junk": "12abc", "huge": "99999999999999999999",
		"default_seed": "11",
	} {
		if err := vs.SetText(name, text); err != nil {
			t.Fatal(err)
		}
	}
	return vs
}

func TestEval(t *testing.T) {
	t.Parallel()
	cases := []struct{ expr, want string }{
		{"1 + 2 * 3", "7"},
		{"(1 + 2) * 3", "9"},
		{"-:i", "-7"},
		{"+:i", "7"},
		{"- - 2", "2"},
		{"7 / 2", "3"},
		{"-7 / 2", "-3"},
		{"-7 % 3", "-1"},
		{"mod(7, -3)", "1"},
		{"7 / 2.0", "3.5"},
		{"7 % 2.0", "1"}, // % is integer only: 2.0 is rounded
		{"-9223372036854775808", "-9223372036854775808"},
		{"-9223372036854775808 % -1", "0"},
		{"5 / -1", "-5"},
		{"1 << 62", "4611686018427387904"},
		{"-8 >> 1", "-4"},
		{"1 << 64", "1"}, // the count is taken modulo 64, as x86-64 does
		{"6 & 3 | 8 # 1", "11"},
		{"~0", "-1"},
		{"~1 + 1", "-3"}, // ~ binds like the bitwise operators: ~(1 + 1)
		{"1 + 2 < 4", "true"},
		{"2 > 1 and 1 >= 1", "true"},
		{"1 <> 1 or 1 != 2", "true"},
		{"not 1 = 2", "true"},
		{"not true and false", "false"},
		{":t and not :f", "true"},
		{"NULL and false", "NULL"},
		{"false and NULL", "false"},
		{"true and NULL", "NULL"},
		{"true or NULL", "true"},
		{"NULL + 1", "NULL"},
		{"least(NULL, 1)", "NULL"},
		{":n is null", "true"},
		{":n isnull", "true"},
		{"1 notnull", "true"},
		{"1 is not null", "true"},
		{"true is true", "true"},
		{"1 is true", "false"},
		{"(1 = 1) is not false", "true"},
		{"case when :i > 5 then 1 else 2 end", "1"},
		{"CASE WHEN :i > 10 THEN 1 WHEN :i > 5 THEN 2 END", "2"},
		{"case when false then 1 end", "NULL"},
		{"case when 0 then 1 when 0.0 then 2 when NULL then 3 else 4 end", "4"},
		{"abs(-5)", "5"},
		{"abs(-2.5)", "2.5"},
		{"abs(-9223372036854775808)", "-9223372036854775808"},
		{"int(2.5) + int(3.5) * 10 + int(-2.5) * 100", "-158"}, // rint: half to even
		{"int(:d)", "2"},
		{"double(3)", "3"},
		{"double(1) / 3", "0.333333333333333"},
		{"sqrt(16)", "4"},
		{"ln(1)", "0"},
		{"exp(0)", "1"},
		{"pow(2, 10)", "1024"},
		{"power(4, 0.5)", "2"},
		{"pi()", "3.14159265358979"},
		{"least(3, 1.5, 2)", "1.5"},
		{"greatest(3, 1, 2)", "3"},
		{"least(:neg)", "-3"},
		{"1e3", "1000"},
		{".5 + 1.", "1.5"},
		{"1.0 / 3e10", "3.33333333333333e-11"},
		{"1e20", "1e+20"},
		{"1.0 / 0", "Infinity"},
		{"-1.0 / 0", "-Infinity"},
		{"sqrt(-1.0)", "NaN"},
		{":big", "9223372036854775807"},
		{"ABS(-1) + Random(3, 3)", "4"},
		{"hash(0) = hash_murmur2(0, :default_seed)", "true"},
		{"hash_fnv1a(5) = hash_fnv1a(5, 11)", "true"},
		{"permute(0, 1)", "0"},
		{"permute(3, 10, 1) = permute(3, 10, 1)", "true"},
		{"random(1, 1)", "1"},
		{"random_zipfian(5, 5, 1.5)", "5"},
		{"random_gaussian(3, 3, 2)", "3"},
		{"random_exponential(3, 3, 1)", "3"},
		{"debug(:i) + 1", "8"},
	}
	for _, tc := range cases {
		t.Run(tc.expr, func(t *testing.T) {
			t.Parallel()
			e, err := ParseExpr(tc.expr)
			if err != nil {
				t.Fatal(err)
			}
			r := NewRand(1)
			v, err := e.Eval(testVars(t), &r)
			if err != nil {
				t.Fatal(err)
			}
			if got := v.String(); got != tc.want {
				t.Errorf("%s = %s, want %s", tc.expr, got, tc.want)
			}
		})
	}
}

func TestEvalErrors(t *testing.T) {
	t.Parallel()
	cases := []struct{ expr, want string }{
		{"1 / 0", "division by zero"},
		{"1 % 0", "division by zero"},
		{"mod(1, 0)", "division by zero"},
		{"9223372036854775807 + 1", "bigint add out of range"},
		{"-9223372036854775808 - 1", "bigint sub out of range"},
		{"4611686018427387904 * 2", "bigint mul out of range"},
		{"-9223372036854775808 * -1", "bigint mul out of range"},
		{"-9223372036854775808 / -1", "bigint div out of range"},
		{":big + 1", "bigint add out of range"},
		{":nosuch + 1", `undefined variable "nosuch"`},
		{":empty + 1", `malformed variable "empty"`},
		{":junk + 1", `malformed variable "junk"`},
		{":huge + 1", `malformed variable "huge"`},
		{"int(1e300)", "double to int overflow"},
		{"int(sqrt(-1.0))", "double to int overflow"},
		{"1 and true", "cannot coerce int to boolean"},
		{"not 1", "cannot coerce int to boolean"},
		{"true + 1", "cannot coerce boolean to int"},
		{"true + 1.5", "cannot coerce boolean to double"},
		{"random(2, 1)", "empty range given to random"},
		{"random(-9223372036854775808, 9223372036854775807)", "random range is too large"},
		{"random(0, 9223372036854775807)", "random range is too large"},
		{"random_gaussian(1, 10, 1.5)", "gaussian parameter must be at least 2.000000 (not 1.500000)"},
		{"random_zipfian(1, 10, 1)", "zipfian parameter must be in range [1.001, 1000]"},
		{"random_zipfian(1, 10, 1001)", "zipfian parameter must be in range"},
		{"random_exponential(1, 10, 0)", "exponential parameter must be greater than zero"},
		{"permute(1, 0)", "permute size parameter must be greater than zero"},
	}
	for _, tc := range cases {
		t.Run(tc.expr, func(t *testing.T) {
			t.Parallel()
			e, err := ParseExpr(tc.expr)
			if err != nil {
				t.Fatal(err)
			}
			r := NewRand(1)
			v, err := e.Eval(testVars(t), &r)
			if err == nil {
				t.Fatalf("%s = %s, want error %q", tc.expr, v, tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s: error %q, want %q", tc.expr, err, tc.want)
			}
		})
	}
}

func TestParseExprErrors(t *testing.T) {
	t.Parallel()
	cases := []struct{ expr, want string }{
		{"", "unexpected end of expression"},
		{"1 +", "unexpected end of expression"},
		{"(1 + 2", `expected ")"`},
		{"1 2", "syntax error"},
		{"'a'", "unexpected character"},
		{"1 < 2 < 3", "syntax error"},
		{"1 = 1 = 1", "syntax error"},
		{"1 is null is null", "syntax error"},
		{"1 is 2", "syntax error"},
		{"nosuch(1)", `unexpected function name "nosuch"`},
		{"abs(1, 2)", "abs: unexpected number of arguments (2)"},
		{"pi(1)", "unexpected number of arguments"},
		{"random(1)", "unexpected number of arguments"},
		{"hash(1, 2, 3)", "unexpected number of arguments"},
		{"permute(1)", "unexpected number of arguments"},
		{"least()", "at least one argument expected"},
		{"abs", `expected "(" after abs`},
		{"abs(1", `expected "," or ")"`},
		{"9223372036854775808", "bigint constant overflow"},
		{"99999999999999999999", "bigint constant overflow"},
		{"1e999", "double constant overflow"},
		{"case 1 end", "expected WHEN"},
		{"case when 1 then 2", "expected WHEN, ELSE or END"},
		{"case when 1 2 end", "expected THEN"},
		{"case when 1 then 2 else 3", "expected END"},
		{"1 $ 2", "unexpected character"},
		{"1 -- comment", `unexpected function name "comment"`},
	}
	for _, tc := range cases {
		t.Run(tc.expr, func(t *testing.T) {
			t.Parallel()
			_, err := ParseExpr(tc.expr)
			if err == nil {
				t.Fatalf("%q parsed, want error %q", tc.expr, tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%q: error %q, want %q", tc.expr, err, tc.want)
			}
		})
	}
}

func TestParseValue(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in   string
		want Value
		err  bool
	}{
		{"null", NullValue(), false},
		{"NuLL", NullValue(), false},
		{"t", BoolValue(true), false},
		{"TRU", BoolValue(true), false},
		{"y", BoolValue(true), false},
		{"on", BoolValue(true), false},
		{"n", BoolValue(false), false},
		{"of", BoolValue(false), false},
		{"OFF", BoolValue(false), false},
		{"f", BoolValue(false), false},
		{"o", Value{}, true},
		{"truex", Value{}, true},
		{" 42", IntValue(42), false},
		{"+42", IntValue(42), false},
		{"-42", IntValue(-42), false},
		{"1.5", DoubleValue(1.5), false},
		{"1e3", DoubleValue(1000), false},
		{"inf", DoubleValue(math.Inf(1)), false},
		{"9223372036854775808", Value{}, true},
		{"", Value{}, true},
		{"1_000", Value{}, true},
	}
	for _, tc := range cases {
		got, err := ParseValue(tc.in)
		if (err != nil) != tc.err || err == nil && got != tc.want {
			t.Errorf("ParseValue(%q) = %+v, %v; want %+v, error %v", tc.in, got, err, tc.want, tc.err)
		}
	}
}
