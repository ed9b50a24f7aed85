package tproch

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Query substitution parameters, generated the way the reference qgen (dbgen 3.0,
// varsub.c) generates them, and the query ordering of the streams.
//
// qgen seeds one random stream per query number from the run's seed: stream q
// starts at seed × 16807^q mod (2^31 − 1) (successive Park–Miller steps), and
// each parameter is drawn from its query's stream in qgen's order. A query's
// parameters therefore depend only on (seed, query number, SF), never on its
// position in a stream. QueryParams reproduces qgen's draws, ranges, list
// orders (dists.dss) and formats; element i of its result is qgen's parameter
// i+1, the value of placeholder :(i+1) in the query templates (queries.go).
// The tests compare it with streams printed by qgen 3.0.0 and 2.17.2.
//
// Differences from qgen, deliberate:
//   - the seed is reduced modulo 2^31 − 1 first (qgen's seeds, mmddhhmmss
//     timestamps, are always below it); a seed ≡ 0, on which the generator
//     would stall (Q7 and Q12 would never find a second distinct value), is
//     replaced by 2^31 − 2, the value qgen gives seed −1;
//   - Q11's FRACTION (0.0001 / SF) is printed with at least 10 decimals, as
//     qgen's %11.10f, and at least 6 significant digits (qgen's format keeps
//     only 2 at SF 30,000), trailing zeros dropped: SF 1 gives 0.0001.
//   - Q6's DISCOUNT is printed 0.0N as qgen prints generated values (its
//     -d default is ".06"; ValidationParams returns "0.06").

const (
	qgenModulus    = 2147483647 // 2^31 − 1
	qgenMultiplier = 16807
)

// qgenRand is one Park–Miller "minimal standard" stream, as dbgen's NextRand
// and UnifInt.
type qgenRand struct{ seed int64 }

// newQueryRand returns the stream qgen uses for query q's parameters.
func newQueryRand(seed int64, q int) *qgenRand {
	s := seed % qgenModulus
	if s < 0 {
		s += qgenModulus
	}
	if s == 0 {
		s = qgenModulus - 1
	}
	r := &qgenRand{seed: s}
	for i := 0; i < q; i++ {
		r.next()
	}
	return r
}

func (r *qgenRand) next() { r.seed = r.seed * qgenMultiplier % qgenModulus }

// unifInt is dbgen's UnifInt: lo + floor(seed / (2^31 − 1) × (hi − lo + 1))
// computed in double precision, after one step of the stream.
func (r *qgenRand) unifInt(lo, hi int64) int64 {
	r.next()
	return lo + int64(float64(r.seed)/float64(qgenModulus)*float64(hi-lo+1))
}

// pick is dbgen's pick_str on a uniform list: a draw in [1, len] selects the
// entry at that position. It returns the index.
func (r *qgenRand) pick(n int) int { return int(r.unifInt(1, int64(n))) - 1 }

// permute is dbgen's permute(): for each position i, swap it with a random
// position in [i, n−1]. qgen starts from the identity.
func (r *qgenRand) permute(n int) []int {
	a := make([]int, n)
	for i := range a {
		a[i] = i
	}
	for i := 0; i < n; i++ {
		j := r.unifInt(int64(i), int64(n-1))
		a[i], a[j] = a[j], a[i]
	}
	return a
}

// The dbgen value lists qgen draws from, in dists.dss order (the order
// matters: a draw selects a position). Prefixed q so they do not collide with
// the data generator's lists.

// qNations are the 25 nations in key order with their region keys.
var qNations = [25]struct {
	Name   string
	Region int
}{
	{"ALGERIA", 0}, {"ARGENTINA", 1}, {"BRAZIL", 1}, {"CANADA", 1}, {"EGYPT", 4},
	{"ETHIOPIA", 0}, {"FRANCE", 3}, {"GERMANY", 3}, {"INDIA", 2}, {"INDONESIA", 2},
	{"IRAN", 4}, {"IRAQ", 4}, {"JAPAN", 2}, {"JORDAN", 4}, {"KENYA", 0},
	{"MOROCCO", 0}, {"MOZAMBIQUE", 0}, {"PERU", 1}, {"CHINA", 2}, {"ROMANIA", 3},
	{"SAUDI ARABIA", 4}, {"VIETNAM", 2}, {"RUSSIA", 3}, {"UNITED KINGDOM", 3}, {"UNITED STATES", 1},
}

// qRegions are the 5 regions in key order.
var qRegions = [5]string{"AFRICA", "AMERICA", "ASIA", "EUROPE", "MIDDLE EAST"}

// Part types are syllable1 × syllable2 × syllable3 (150), syllable 1 slowest.
var (
	qTypeSyllable1 = [6]string{"STANDARD", "SMALL", "MEDIUM", "LARGE", "ECONOMY", "PROMO"}
	qTypeSyllable2 = [5]string{"ANODIZED", "BURNISHED", "PLATED", "POLISHED", "BRUSHED"}
	qTypeSyllable3 = [5]string{"TIN", "NICKEL", "BRASS", "STEEL", "COPPER"}
)

// qType returns the i-th of the 150 part types as its three syllables.
func qType(i int) (s1, s2, s3 string) {
	return qTypeSyllable1[i/25], qTypeSyllable2[i/5%5], qTypeSyllable3[i%5]
}

// Containers are syllable1 × syllable2 (40), syllable 1 slowest.
var (
	qContainerSyllable1 = [5]string{"SM", "LG", "MED", "JUMBO", "WRAP"}
	qContainerSyllable2 = [8]string{"CASE", "BOX", "BAG", "JAR", "PACK", "PKG", "CAN", "DRUM"}
)

// qSegments are the market segments, qModes the ship modes.
var (
	qSegments = [5]string{"AUTOMOBILE", "BUILDING", "FURNITURE", "HOUSEHOLD", "MACHINERY"}
	qModes    = [7]string{"REG AIR", "AIR", "RAIL", "TRUCK", "MAIL", "FOB", "SHIP"}
)

// qColors are the 92 P_NAME words.
var qColors = [92]string{
	"almond", "antique", "aquamarine", "azure", "beige", "bisque", "black", "blanched", "blue", "blush",
	"brown", "burlywood", "burnished", "chartreuse", "chiffon", "chocolate", "coral", "cornflower",
	"cornsilk", "cream", "cyan", "dark", "deep", "dim", "dodger", "drab", "firebrick", "floral", "forest",
	"frosted", "gainsboro", "ghost", "goldenrod", "green", "grey", "honeydew", "hot", "indian", "ivory",
	"khaki", "lace", "lavender", "lawn", "lemon", "light", "lime", "linen", "magenta", "maroon", "medium",
	"metallic", "midnight", "mint", "misty", "moccasin", "navajo", "navy", "olive", "orange", "orchid",
	"pale", "papaya", "peach", "peru", "pink", "plum", "powder", "puff", "purple", "red", "rose", "rosy",
	"royal", "saddle", "salmon", "sandy", "seashell", "sienna", "sky", "slate", "smoke", "snow", "spring",
	"steel", "tan", "thistle", "tomato", "turquoise", "violet", "wheat", "white", "yellow",
}

// Q13's comment words (dists.dss Q13a and Q13b).
var (
	qQ13Word1 = [4]string{"special", "pending", "unusual", "express"}
	qQ13Word2 = [4]string{"packages", "requests", "accounts", "deposits"}
)

// monthStart formats the first day of month m (0 = January 1993).
func monthStart(m int64) string { return fmt.Sprintf("%04d-%02d-01", 1993+m/12, m%12+1) }

// yearStart formats January 1 of year 19yy.
func yearStart(yy int64) string { return fmt.Sprintf("19%02d-01-01", yy) }

func (r *qgenRand) brand() string {
	m := r.unifInt(1, 5)
	n := r.unifInt(1, 5)
	return fmt.Sprintf("Brand#%d%d", m, n)
}

// Q11Fraction formats Q11's FRACTION, 0.0001 / SF: at least 10 decimals (as
// qgen's %11.10f) and at least 6 significant digits, trailing zeros dropped.
func Q11Fraction(sf float64) string {
	if !(sf > 0) || math.IsInf(sf, 0) {
		sf = 1
	}
	v := 0.0001 / sf
	prec := 10
	if need := int(math.Ceil(-math.Log10(v))) + 5; need > prec {
		prec = need
	}
	s := strconv.FormatFloat(v, 'f', prec, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(s, "0")
		s = strings.TrimSuffix(s, ".")
	}
	return s
}

// QueryParams returns the substitution parameters of query q (1..22) for a
// seed and scale factor, as qgen -r seed -s sf generates them; element i is
// the value of placeholder :(i+1). The result depends only on (q, seed, sf);
// sf matters only for Q11. It returns nil for q outside 1..22.
func QueryParams(q int, seed int64, sf float64) []string {
	if q < 1 || q > 22 {
		return nil
	}
	r := newQueryRand(seed, q)
	itoa := func(v int64) string { return strconv.FormatInt(v, 10) }
	switch q {
	case 1: // DELTA days
		return []string{itoa(r.unifInt(60, 120))}
	case 2: // SIZE, TYPE (last syllable of a random type), REGION
		size := r.unifInt(1, 50)
		_, _, s3 := qType(r.pick(150))
		region := qRegions[r.pick(5)]
		return []string{itoa(size), s3, region}
	case 3: // SEGMENT, DATE in March 1995
		seg := qSegments[r.pick(5)]
		day := r.unifInt(0, 30)
		return []string{seg, fmt.Sprintf("1995-03-%02d", day+1)}
	case 4: // DATE: first of a month 1993-01 .. 1997-10
		return []string{monthStart(r.unifInt(0, 57))}
	case 5: // REGION, DATE: Jan 1 of 1993 .. 1997
		region := qRegions[r.pick(5)]
		return []string{region, yearStart(r.unifInt(93, 97))}
	case 6: // DATE, DISCOUNT 0.02 .. 0.09, QUANTITY 24 .. 25
		date := yearStart(r.unifInt(93, 97))
		disc := fmt.Sprintf("0.%02d", r.unifInt(2, 9))
		return []string{date, disc, itoa(r.unifInt(24, 25))}
	case 7: // NATION1, NATION2 ≠ NATION1
		n1 := r.pick(25)
		n2 := r.pick(25)
		for n2 == n1 {
			n2 = r.pick(25)
		}
		return []string{qNations[n1].Name, qNations[n2].Name}
	case 8: // NATION, its REGION, TYPE
		n := r.pick(25)
		s1, s2, s3 := qType(r.pick(150))
		return []string{qNations[n].Name, qRegions[qNations[n].Region], s1 + " " + s2 + " " + s3}
	case 9: // COLOR
		return []string{qColors[r.pick(92)]}
	case 10: // DATE: first of a month 1993-02 .. 1995-01
		return []string{monthStart(r.unifInt(1, 24))}
	case 11: // NATION, FRACTION
		return []string{qNations[r.pick(25)].Name, Q11Fraction(sf)}
	case 12: // SHIPMODE1, SHIPMODE2 ≠ SHIPMODE1, DATE
		m1 := r.pick(7)
		m2 := r.pick(7)
		for m2 == m1 {
			m2 = r.pick(7)
		}
		return []string{qModes[m1], qModes[m2], yearStart(r.unifInt(93, 97))}
	case 13: // WORD1, WORD2
		w1 := qQ13Word1[r.pick(4)]
		return []string{w1, qQ13Word2[r.pick(4)]}
	case 14: // DATE: first of a month 1993-01 .. 1997-12
		return []string{monthStart(r.unifInt(0, 59))}
	case 15: // DATE: first of a month 1993-01 .. 1997-10
		return []string{monthStart(r.unifInt(0, 57))}
	case 16: // BRAND, TYPE prefix (2 syllables), 8 distinct SIZEs
		brand := r.brand()
		s1, s2, _ := qType(r.pick(150))
		out := []string{brand, s1 + " " + s2}
		for _, i := range r.permute(50)[:8] {
			out = append(out, itoa(int64(i+1)))
		}
		return out
	case 17: // BRAND, CONTAINER
		brand := r.brand()
		c := r.pick(40)
		return []string{brand, qContainerSyllable1[c/8] + " " + qContainerSyllable2[c%8]}
	case 18: // QUANTITY 312 .. 315
		return []string{itoa(r.unifInt(312, 315))}
	case 19: // BRAND1..3, QUANTITY1 1..10, QUANTITY2 10..20, QUANTITY3 20..30
		b1, b2, b3 := r.brand(), r.brand(), r.brand()
		q1 := r.unifInt(1, 10)
		q2 := r.unifInt(10, 20)
		q3 := r.unifInt(20, 30)
		return []string{b1, b2, b3, itoa(q1), itoa(q2), itoa(q3)}
	case 20: // COLOR, DATE, NATION
		color := qColors[r.pick(92)]
		date := yearStart(r.unifInt(93, 97))
		return []string{color, date, qNations[r.pick(25)].Name}
	case 21: // NATION
		return []string{qNations[r.pick(25)].Name}
	case 22: // 7 distinct country codes 10 .. 34
		out := make([]string, 0, 7)
		for _, c := range r.permute(25)[:7] {
			out = append(out, itoa(int64(10+c)))
		}
		return out
	}
	return nil
}

// validationParams are the qualification (SF 1) values of every query, as
// qgen -d prints them (the specification's clause 2.4, the reference sheet's §3 table).
var validationParams = [22][]string{
	{"90"},
	{"15", "BRASS", "EUROPE"},
	{"BUILDING", "1995-03-15"},
	{"1993-07-01"},
	{"ASIA", "1994-01-01"},
	{"1994-01-01", "0.06", "24"},
	{"FRANCE", "GERMANY"},
	{"BRAZIL", "AMERICA", "ECONOMY ANODIZED STEEL"},
	{"green"},
	{"1993-10-01"},
	{"GERMANY", "0.0001"},
	{"MAIL", "SHIP", "1994-01-01"},
	{"special", "requests"},
	{"1995-09-01"},
	{"1996-01-01"},
	{"Brand#45", "MEDIUM POLISHED", "49", "14", "23", "45", "19", "3", "36", "9"},
	{"Brand#23", "MED BOX"},
	{"300"},
	{"Brand#12", "Brand#23", "Brand#34", "1", "10", "20"},
	{"forest", "1994-01-01", "CANADA"},
	{"SAUDI ARABIA"},
	{"13", "31", "23", "29", "30", "18", "17"},
}

// ValidationParams returns query q's validation parameters (SF 1, the values
// the answer set was produced with), in the order of QueryParams. It returns
// nil for q outside 1..22.
func ValidationParams(q int) []string {
	if q < 1 || q > 22 {
		return nil
	}
	return append([]string(nil), validationParams[q-1]...)
}

// StreamOrder returns the order in which query stream s runs the 22 queries:
// row (s mod 41) of the specification's ordering table (Appendix A, qgen's
// permute.h). Stream 0 is the power test.
func StreamOrder(stream int) [22]int {
	s := stream % len(streamOrders)
	if s < 0 {
		s += len(streamOrders)
	}
	return streamOrders[s]
}

var streamOrders = [41][22]int{
	{14, 2, 9, 20, 6, 17, 18, 8, 21, 13, 3, 22, 16, 4, 11, 15, 1, 10, 19, 5, 7, 12}, // 0
	{21, 3, 18, 5, 11, 7, 6, 20, 17, 12, 16, 15, 13, 10, 2, 8, 14, 19, 9, 22, 1, 4}, // 1
	{6, 17, 14, 16, 19, 10, 9, 2, 15, 8, 5, 22, 12, 7, 13, 18, 1, 4, 20, 3, 11, 21}, // 2
	{8, 5, 4, 6, 17, 7, 1, 18, 22, 14, 9, 10, 15, 11, 20, 2, 21, 19, 13, 16, 12, 3}, // 3
	{5, 21, 14, 19, 15, 17, 12, 6, 4, 9, 8, 16, 11, 2, 10, 18, 1, 13, 7, 22, 3, 20}, // 4
	{21, 15, 4, 6, 7, 16, 19, 18, 14, 22, 11, 13, 3, 1, 2, 5, 8, 20, 12, 17, 10, 9}, // 5
	{10, 3, 15, 13, 6, 8, 9, 7, 4, 11, 22, 18, 12, 1, 5, 16, 2, 14, 19, 20, 17, 21}, // 6
	{18, 8, 20, 21, 2, 4, 22, 17, 1, 11, 9, 19, 3, 13, 5, 7, 10, 16, 6, 14, 15, 12}, // 7
	{19, 1, 15, 17, 5, 8, 9, 12, 14, 7, 4, 3, 20, 16, 6, 22, 10, 13, 2, 21, 18, 11}, // 8
	{8, 13, 2, 20, 17, 3, 6, 21, 18, 11, 19, 10, 15, 4, 22, 1, 7, 12, 9, 14, 5, 16}, // 9
	{6, 15, 18, 17, 12, 1, 7, 2, 22, 13, 21, 10, 14, 9, 3, 16, 20, 19, 11, 4, 8, 5}, // 10
	{15, 14, 18, 17, 10, 20, 16, 11, 1, 8, 4, 22, 5, 12, 3, 9, 21, 2, 13, 6, 19, 7}, // 11
	{1, 7, 16, 17, 18, 22, 12, 6, 8, 9, 11, 4, 2, 5, 20, 21, 13, 10, 19, 3, 14, 15}, // 12
	{21, 17, 7, 3, 1, 10, 12, 22, 9, 16, 6, 11, 2, 4, 5, 14, 8, 20, 13, 18, 15, 19}, // 13
	{2, 9, 5, 4, 18, 1, 20, 15, 16, 17, 7, 21, 13, 14, 19, 8, 22, 11, 10, 3, 12, 6}, // 14
	{16, 9, 17, 8, 14, 11, 10, 12, 6, 21, 7, 3, 15, 5, 22, 20, 1, 13, 19, 2, 4, 18}, // 15
	{1, 3, 6, 5, 2, 16, 14, 22, 17, 20, 4, 9, 10, 11, 15, 8, 12, 19, 18, 13, 7, 21}, // 16
	{3, 16, 5, 11, 21, 9, 2, 15, 10, 18, 17, 7, 8, 19, 14, 13, 1, 4, 22, 20, 6, 12}, // 17
	{14, 4, 13, 5, 21, 11, 8, 6, 3, 17, 2, 20, 1, 19, 10, 9, 12, 18, 15, 7, 22, 16}, // 18
	{4, 12, 22, 14, 5, 15, 16, 2, 8, 10, 17, 9, 21, 7, 3, 6, 13, 18, 11, 20, 19, 1}, // 19
	{16, 15, 14, 13, 4, 22, 18, 19, 7, 1, 12, 17, 5, 10, 20, 3, 9, 21, 11, 2, 6, 8}, // 20
	{20, 14, 21, 12, 15, 17, 4, 19, 13, 10, 11, 1, 16, 5, 18, 7, 8, 22, 9, 6, 3, 2}, // 21
	{16, 14, 13, 2, 21, 10, 11, 4, 1, 22, 18, 12, 19, 5, 7, 8, 6, 3, 15, 20, 9, 17}, // 22
	{18, 15, 9, 14, 12, 2, 8, 11, 22, 21, 16, 1, 6, 17, 5, 10, 19, 4, 20, 13, 3, 7}, // 23
	{7, 3, 10, 14, 13, 21, 18, 6, 20, 4, 9, 8, 22, 15, 2, 1, 5, 12, 19, 17, 11, 16}, // 24
	{18, 1, 13, 7, 16, 10, 14, 2, 19, 5, 21, 11, 22, 15, 8, 17, 20, 3, 4, 12, 6, 9}, // 25
	{13, 2, 22, 5, 11, 21, 20, 14, 7, 10, 4, 9, 19, 18, 6, 3, 1, 8, 15, 12, 17, 16}, // 26
	{14, 17, 21, 8, 2, 9, 6, 4, 5, 13, 22, 7, 15, 3, 1, 18, 16, 11, 10, 12, 20, 19}, // 27
	{10, 22, 1, 12, 13, 18, 21, 20, 2, 14, 16, 7, 15, 3, 4, 17, 5, 19, 6, 8, 9, 11}, // 28
	{10, 8, 9, 18, 12, 6, 1, 5, 20, 11, 17, 22, 16, 3, 13, 2, 15, 21, 14, 19, 7, 4}, // 29
	{7, 17, 22, 5, 3, 10, 13, 18, 9, 1, 14, 15, 21, 19, 16, 12, 8, 6, 11, 20, 4, 2}, // 30
	{2, 9, 21, 3, 4, 7, 1, 11, 16, 5, 20, 19, 18, 8, 17, 13, 10, 12, 15, 6, 14, 22}, // 31
	{15, 12, 8, 4, 22, 13, 16, 17, 18, 3, 7, 5, 6, 1, 9, 11, 21, 10, 14, 20, 19, 2}, // 32
	{15, 16, 2, 11, 17, 7, 5, 14, 20, 4, 21, 3, 10, 9, 12, 8, 13, 6, 18, 19, 22, 1}, // 33
	{1, 13, 11, 3, 4, 21, 6, 14, 15, 22, 18, 9, 7, 5, 10, 20, 12, 16, 17, 8, 19, 2}, // 34
	{14, 17, 22, 20, 8, 16, 5, 10, 1, 13, 2, 21, 12, 9, 4, 18, 3, 7, 6, 19, 15, 11}, // 35
	{9, 17, 7, 4, 5, 13, 21, 18, 11, 3, 22, 1, 6, 16, 20, 14, 15, 10, 8, 2, 12, 19}, // 36
	{13, 14, 5, 22, 19, 11, 9, 6, 18, 15, 8, 10, 7, 4, 17, 16, 3, 1, 12, 2, 21, 20}, // 37
	{20, 5, 4, 14, 11, 1, 6, 16, 8, 22, 7, 3, 2, 12, 21, 19, 17, 13, 10, 15, 18, 9}, // 38
	{3, 7, 14, 15, 6, 5, 21, 20, 18, 10, 4, 16, 19, 1, 13, 9, 8, 17, 11, 12, 22, 2}, // 39
	{13, 15, 17, 1, 22, 11, 3, 4, 7, 20, 14, 21, 9, 8, 2, 18, 16, 6, 10, 12, 5, 19}, // 40
}
