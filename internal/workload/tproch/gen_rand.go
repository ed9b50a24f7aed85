package tproch

// Random streams of the TPROC-H generator, reproducing the reference
// dbgen's (version 3.0.x) exactly [reference §2.6]:
//
//   - every generated column draws from its own Park–Miller "minimal
//     standard" stream (x ← x·16807 mod 2³¹−1) with a fixed initial seed;
//   - a draw in [lo, hi] is lo + ⌊x/(2³¹−1) · (hi−lo+1)⌋, computed in
//     float64 as dbgen does;
//   - each stream has a per-row budget of draws (its "boundary"): after a row
//     the stream jumps to where it would be after exactly boundary draws, so
//     the state at row k is seed·16807^((k−1)·boundary) and any row range can
//     start anywhere by skip-ahead.
//
// The row resynchronisation is what makes parts independent: a Source keeps,
// per stream, the value at the start of the current row and moves it one
// row's worth of draws ahead at the end of the row, whatever the row drew.

const (
	pmMod  = 2147483647 // 2^31 − 1
	pmMult = 16807
	dM     = 2147483647.0
	maxL32 = 0x7FFFFFFF // dbgen's MAX_LONG
)

// Stream indexes (dbgen dss.h / shared.h).
const (
	sdPMfg     = 0
	sdPBrnd    = 1
	sdPType    = 2
	sdPSize    = 3
	sdPCntr    = 4
	sdTextPool = 5
	sdPCmnt    = 6
	sdPSQty    = 7
	sdPSScst   = 8
	sdPSCmnt   = 9
	sdOSupp    = 10
	sdOClrk    = 11
	sdOCmnt    = 12
	sdOODate   = 13
	sdLQty     = 14
	sdLDcnt    = 15
	sdLTax     = 16
	sdLShip    = 17
	sdLSMode   = 18
	sdLPKey    = 19
	sdLSKey    = 20
	sdLSDate   = 21
	sdLCDate   = 22
	sdLRDate   = 23
	sdLRFlag   = 24
	sdLCmnt    = 25
	sdCAddr    = 26
	sdCNtrg    = 27
	sdCPhne    = 28
	sdCAbal    = 29
	sdCMseg    = 30
	sdCCmnt    = 31
	sdSAddr    = 32
	sdSNtrg    = 33
	sdSPhne    = 34
	sdSAbal    = 35
	sdSCmnt    = 36
	sdPName    = 37
	sdOPrio    = 38
	sdHVar     = 39
	sdOCKey    = 40
	sdNCmnt    = 41
	sdRCmnt    = 42
	sdOLcnt    = 43
	sdBBBJnk   = 44
	sdBBBType  = 45
	sdBBBCmnt  = 46
	sdBBBOff   = 47
	numStreams = 48
)

// streamSeeds and streamBoundary are dbgen's Seed[] table (rnd.h): initial
// value and draws per row of the owning table (per order for the lineitem
// streams, per part for the partsupp streams).
var streamSeeds = [numStreams]int64{
	1, 46831694, 1841581359, 1193163244, 727633698, 933588178, 804159733,
	1671059989, 1051288424, 1961692154,
	1227283347, 1171034773, 276090261, 1066728069,
	209208115, 554590007, 721958466, 1371272478, 675466456, 1808217256, 2095021727,
	1769349045, 904914315, 373135028, 717419739, 1095462486,
	881155353, 1489529863, 1521138112, 298370230, 1140279430, 1335826707,
	706178559, 110356601, 884434366, 962338209, 1341315363,
	709314158, 591449447, 431918286, 851767375, 606179079, 1500869201, 1434868289,
	263032577, 753643799, 202794285, 715851524,
}

var streamBoundary = [numStreams]int64{
	1, 1, 1, 1, 1, 1, 2,
	4, 4, 8,
	1, 1, 2, 1,
	7, 7, 7, 7, 7, 7, 7,
	7, 7, 7, 7, 14,
	9, 1, 3, 1, 1, 2,
	9, 1, 3, 1, 2,
	92, 1, 1, 1, 2, 2, 1,
	1, 1, 1, 1,
}

// pmPow returns 16807^n mod (2^31 − 1).
func pmPow(n int64) int64 {
	r, m := int64(1), int64(pmMult)
	for n > 0 {
		if n&1 != 0 {
			r = r * m % pmMod
		}
		n >>= 1
		m = m * m % pmMod
	}
	return r
}

// nthElement is dbgen's NthElement: the value n draws after x. It is written
// with wrapping int64 arithmetic so that it also reproduces dbgen on the
// 64-bit streams of SF ≥ 30,000 (where x is not a Park–Miller value).
func nthElement(x, n int64) int64 {
	m := int64(pmMult)
	for n > 0 {
		if n%2 != 0 {
			x = (m * x) % pmMod
		}
		n /= 2
		m = (m * m) % pmMod
	}
	return x
}

// stream is one column's random stream inside a Source.
type stream struct {
	cur  int64 // current value
	row  int64 // value at the start of the current row
	step int64 // 16807^boundary: one row's worth of draws
}

// init positions the stream at the start of row pos (0-based), i.e. after
// pos·boundary draws from its seed.
func (s *stream) init(sd int, pos int64) {
	b := streamBoundary[sd]
	s.step = pmPow(b)
	s.row = nthElement(streamSeeds[sd], pos*b)
	s.cur = s.row
}

// nextRow moves the stream to the start of the next row.
func (s *stream) nextRow() {
	s.row = s.row * s.step % pmMod
	s.cur = s.row
}

// next is dbgen's NextRand. x·16807 mod 2³¹−1 for 0 ≤ x < 2³¹−1 without a
// division: with x·16807 = h·2³¹ + l, 2³¹ ≡ 1 makes it h + l, less than
// 2·(2³¹−1), so one subtraction at most remains. (The 64-bit streams never
// come here: they draw with intn64.)
func (s *stream) next() int64 {
	x := s.cur * pmMult
	x = x&pmMod + x>>31
	if x >= pmMod {
		x -= pmMod
	}
	s.cur = x
	return x
}

// intn is dbgen's UnifInt(lo, hi): uniform in [lo, hi].
func (s *stream) intn(lo, hi int64) int64 {
	v := s.next()
	if lo == 0 && hi == maxL32 {
		// dbgen computes this range in 32-bit ints, where it overflows to
		// −2^31; a_rnd relies on the resulting (negative) values.
		return int64(float64(v) / dM * -2147483648.0)
	}
	return lo + int64(float64(v)/dM*float64(hi-lo+1))
}

// pick is dbgen's pick_str: a draw in [1, total weight] selects the first
// entry whose cumulative weight reaches it.
func (s *stream) pick(d *dist) int {
	j := s.intn(1, int64(len(d.lookup)))
	return int(d.lookup[j-1])
}

// 64-bit generator dbgen uses for O_CUSTKEY and L_PARTKEY at SF ≥ 30,000
// (rng64.c): x ← x·A + C mod 2^64, value |x| mod range.
const (
	rng64A = 6364136223846793005
	rng64C = 1
)

func (s *stream) intn64(lo, hi int64) int64 {
	s.cur = int64(uint64(s.cur)*rng64A + rng64C)
	t := s.cur
	if t < 0 {
		t = -t
	}
	return lo + t%(hi-lo+1)
}
