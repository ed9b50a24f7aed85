package chbench

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// The rows of CH-benCHmark's three added tables. REGION and NATION are
// fixed lists; SUPPLIER is drawn from the build's seed, so that one seed
// gives the same rows on every database.

// Sizes of the added tables (the paper's).
const (
	numSuppliers = 10000
	numNations   = 62
	numRegions   = 5
)

// regions are R_NAME by R_REGIONKEY 0 … 4.
var regions = [numRegions]string{"Africa", "America", "Asia", "Australia", "Europe"}

// nationKeys are the 62 N_NATIONKEYs: the character codes of '0'-'9',
// 'A'-'Z' and 'a'-'z', so that a customer's nation is the code of the
// first character of its C_STATE (TPROC-C's states are two upper-case
// letters: customers live in the 26 nations keyed 'A' … 'Z').
func nationKeys() []int {
	var keys []int
	for _, r := range [][2]byte{{'0', '9'}, {'A', 'Z'}, {'a', 'z'}} {
		for c := r[0]; c <= r[1]; c++ {
			keys = append(keys, int(c))
		}
	}
	return keys
}

// nation is one row of NATION but its key.
type nation struct {
	name   string
	region int // R_REGIONKEY
}

// nations are in nationKeys' order. The queries name Germany, Cambodia and
// Europe: both nations are among the customers' (keys 'C' and 'G'), with
// several other European ones, so that Q5, Q7 and Q8 find rows.
var nations = [numNations]nation{
	// '0' … '9'
	{"Australia", 3}, {"Brazil", 1}, {"Canada", 1}, {"Chile", 1}, {"China", 2},
	{"Colombia", 1}, {"Ethiopia", 0}, {"Finland", 4}, {"Ghana", 0}, {"Iceland", 4},
	// 'A' … 'Z': the customers' nations
	{"Argentina", 1}, {"Belgium", 4}, {"Cambodia", 2}, {"Denmark", 4}, {"Egypt", 0},
	{"France", 4}, {"Germany", 4}, {"Hungary", 4}, {"India", 2}, {"Japan", 2},
	{"Kenya", 0}, {"Lithuania", 4}, {"Mexico", 1}, {"New Zealand", 3}, {"Oman", 2},
	{"Peru", 1}, {"Qatar", 2}, {"Romania", 4}, {"Senegal", 0}, {"Thailand", 2},
	{"Uruguay", 1}, {"Vietnam", 2}, {"Vanuatu", 3}, {"Fiji", 3}, {"Yemen", 2},
	{"Zambia", 0},
	// 'a' … 'z'
	{"Austria", 4}, {"Bolivia", 1}, {"Botswana", 0}, {"Croatia", 4}, {"Cuba", 1},
	{"Ecuador", 1}, {"Estonia", 4}, {"Indonesia", 2}, {"Ireland", 4}, {"Italy", 4},
	{"Jamaica", 1}, {"Jordan", 2}, {"Latvia", 4}, {"Malaysia", 2}, {"Morocco", 0},
	{"Namibia", 0}, {"Netherlands", 4}, {"Nigeria", 0}, {"Norway", 4}, {"Papua New Guinea", 3},
	{"Poland", 4}, {"Portugal", 4}, {"Spain", 4}, {"Sweden", 4}, {"Tanzania", 0},
	{"Tonga", 3},
}

// Streams of the seed's generator, apart from TPROC-C's.
const (
	streamSupplier = 0xc4b0 + iota
	streamNation
	streamRegion
)

// gen draws the added tables' text from one seed.
type gen struct{ r *rand.Rand }

func newGen(seed, stream uint64) *gen { return &gen{rand.New(rand.NewPCG(seed, stream))} }

func (g *gen) intn(lo, hi int) int { return lo + g.r.IntN(hi-lo+1) }

// letters is lower-case words of random letters, lo … hi characters long
// in all: the tables' comments and addresses (never a quote, so that they
// can be written as SQL literals).
func (g *gen) letters(lo, hi int) string {
	n := g.intn(lo, hi)
	b := make([]byte, n)
	for i := range b {
		if i > 0 && i < n-1 && b[i-1] != ' ' && g.r.IntN(7) == 0 {
			b[i] = ' '
			continue
		}
		b[i] = byte('a' + g.r.IntN(26))
	}
	return string(b)
}

// row is one row's values as SQL literals.
type row []string

func quote(s string) string { return "'" + s + "'" }

// regionRows are REGION's rows.
func regionRows(seed uint64) []row {
	g := newGen(seed, streamRegion)
	out := make([]row, 0, numRegions)
	for k, name := range regions {
		out = append(out, row{fmt.Sprint(k), quote(name), quote(g.letters(31, 115))})
	}
	return out
}

// nationRows are NATION's rows.
func nationRows(seed uint64) []row {
	g := newGen(seed, streamNation)
	out := make([]row, 0, numNations)
	for i, k := range nationKeys() {
		n := nations[i]
		out = append(out, row{fmt.Sprint(k), quote(n.name), fmt.Sprint(n.region), quote(g.letters(31, 114))})
	}
	return out
}

// supplierRows are SUPPLIER's rows, keys 0 … 9,999 (what mod(S_W_ID *
// S_I_ID, 10000) gives). A supplier's nation is one of the 62 at random;
// one in twenty has "bad" in its comment (Q16 leaves out the suppliers
// with complaints).
func supplierRows(seed uint64) []row {
	g := newGen(seed, streamSupplier)
	keys := nationKeys()
	out := make([]row, 0, numSuppliers)
	for k := range numSuppliers {
		ni := g.r.IntN(numNations)
		phone := fmt.Sprintf("%02d-%03d-%03d-%04d", ni+10, g.intn(100, 999), g.intn(100, 999), g.intn(1000, 9999))
		bal := g.intn(-99999, 999999) // cents
		sign := ""
		if bal < 0 {
			sign, bal = "-", -bal
		}
		comment := g.letters(25, 100)
		if g.r.IntN(20) == 0 {
			at := g.r.IntN(len(comment) - 4)
			comment = comment[:at] + " bad " + comment[at+5:]
		}
		out = append(out, row{
			fmt.Sprint(k), quote(fmt.Sprintf("Supplier#%09d", k)), quote(g.letters(10, 40)),
			fmt.Sprint(keys[ni]), quote(phone), fmt.Sprintf("%s%d.%02d", sign, bal/100, bal%100),
			quote(strings.TrimSpace(comment)),
		})
	}
	return out
}
