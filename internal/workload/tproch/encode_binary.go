package tproch

import (
	"context"
	"encoding/binary"
	"sync/atomic"
)

// PostgreSQL's binary COPY format: the server takes each value in its
// internal form (an int4, an int8, a numeric's base-10,000 digits, a date's
// day number) where the text format has it parse every number and date.
// Parsing is most of a text COPY's server work on LINEITEM (four decimals
// and three dates per row), and on a small machine the server's cores are
// what a build waits for.

// pgBinaryHeader starts a binary COPY stream: the signature, no flags, no
// header extension.
var pgBinaryHeader = []byte("PGCOPY\n\xff\r\n\x00\x00\x00\x00\x00\x00\x00\x00\x00")

// pgEpochDay is 2000-01-01, PostgreSQL's date zero, as a Unix day number.
const pgEpochDay = 10957

// bigintColumns marks the columns the schema types bigint (the order keys,
// sparse beyond 2^31 at large scale factors); every other integer is an
// integer (int4).
var bigintColumns = map[string]bool{"o_orderkey": true, "l_orderkey": true}

// binaryEncoder is a RowWriter appending rows of one table as tuples of
// PostgreSQL's binary COPY format. Its integer widths and field count are the
// table's (schema.sql).
type binaryEncoder struct {
	buf  []byte
	wide []bool // per column: int8, not int4
	col  int
}

func newBinaryEncoder(t Table) *binaryEncoder {
	e := &binaryEncoder{buf: make([]byte, 0, 64<<10)}
	for _, c := range t.Columns() {
		e.wide = append(e.wide, bigintColumns[c])
	}
	return e
}

func (e *binaryEncoder) Bytes() []byte { return e.buf }
func (e *binaryEncoder) Len() int      { return len(e.buf) }
func (e *binaryEncoder) Reset()        { e.buf, e.col = e.buf[:0], 0 }

// discard drops the first n encoded bytes, between rows.
func (e *binaryEncoder) discard(n int) { e.buf = e.buf[:copy(e.buf, e.buf[n:])] }

// field starts the next value: the tuple's field count before its first.
func (e *binaryEncoder) field() {
	if e.col == 0 {
		e.buf = binary.BigEndian.AppendUint16(e.buf, uint16(len(e.wide)))
	}
	e.col++
}

func (e *binaryEncoder) Int(v int64) {
	wide := e.wide[e.col]
	e.field()
	if wide {
		e.buf = binary.BigEndian.AppendUint32(e.buf, 8)
		e.buf = binary.BigEndian.AppendUint64(e.buf, uint64(v))
		return
	}
	e.buf = binary.BigEndian.AppendUint32(e.buf, 4)
	e.buf = binary.BigEndian.AppendUint32(e.buf, uint32(int32(v)))
}

func (e *binaryEncoder) Text(b []byte) {
	e.field()
	e.buf = binary.BigEndian.AppendUint32(e.buf, uint32(len(b)))
	e.buf = append(e.buf, b...)
}

func (e *binaryEncoder) Decimal(h int64) {
	e.field()
	e.buf = appendNumeric(e.buf, h)
}

func (e *binaryEncoder) Date(days int32) {
	e.field()
	e.buf = binary.BigEndian.AppendUint32(e.buf, 4)
	e.buf = binary.BigEndian.AppendUint32(e.buf, uint32(days-pgEpochDay))
}

func (e *binaryEncoder) EndRow() error {
	e.col = 0
	return nil
}

// appendNumeric appends a length-prefixed numeric of scale 2 given in
// hundredths: its base-10,000 digits, most significant first, without
// leading or trailing zero digits (the form PostgreSQL itself sends); the
// weight is the power of 10,000 of the first digit. The value is made in a
// fixed array and appended once: LINEITEM has four per row.
func appendNumeric(b []byte, h int64) []byte {
	const (
		pos = 0x0000
		neg = 0x4000
	)
	sign := uint16(pos)
	u := uint64(h)
	if h < 0 {
		sign, u = neg, uint64(-h)
	}
	ip, frac := u/100, u%100
	var digits [6]uint16 // int64 hundredths: at most 17 integer digits, 5 groups, and the fraction
	n := 0
	switch {
	case ip == 0:
	case ip < 10000:
		digits[0], n = uint16(ip), 1
	case ip < 10000*10000:
		digits[0], digits[1], n = uint16(ip/10000), uint16(ip%10000), 2
	default:
		for x := ip; x > 0; x /= 10000 {
			n++
		}
		for i, x := n-1, ip; i >= 0; i, x = i-1, x/10000 {
			digits[i] = uint16(x % 10000)
		}
	}
	weight := n - 1
	if frac != 0 {
		if n == 0 {
			weight = -1
		}
		digits[n] = uint16(frac * 100)
		n++
	}
	// Trailing zero digits of the integer part (1,000,000.00 is one digit
	// of weight 1).
	for n > 0 && digits[n-1] == 0 {
		n--
	}
	if n == 0 {
		weight, sign = 0, pos
	}
	var v [12 + 2*len(digits)]byte
	binary.BigEndian.PutUint32(v[0:], uint32(8+2*n))
	binary.BigEndian.PutUint16(v[4:], uint16(n))
	binary.BigEndian.PutUint16(v[6:], uint16(int16(weight)))
	binary.BigEndian.PutUint16(v[8:], sign)
	binary.BigEndian.PutUint16(v[10:], 2) // display scale
	for i, d := range digits[:n] {
		binary.BigEndian.PutUint16(v[12+2*i:], d)
	}
	return append(b, v[:12+2*n]...)
}

// newBinaryReader streams src's rows in PostgreSQL's binary COPY format,
// header and trailer included, pulled as Read asks for bytes; count, if set,
// is added the rows as they are encoded.
func newBinaryReader(ctx context.Context, src *Source, count *atomic.Int64) *rowReader {
	return &rowReader{ctx: ctx, src: src, enc: newBinaryEncoder(src.Table()), binary: true, count: count}
}
