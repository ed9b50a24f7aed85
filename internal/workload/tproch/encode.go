package tproch

import (
	"context"
	"io"
	"strconv"
	"sync/atomic"
)

// Format is a text encoding of generated rows.
type Format int

const (
	// FormatCopy is PostgreSQL COPY text format (also MariaDB/MySQL LOAD
	// DATA's default): tab-separated, \N for NULL, backslash escapes for
	// backslash, tab, newline and carriage return, one row per line.
	FormatCopy Format = iota
	// FormatPipe is dbgen's .tbl style: every column followed by '|',
	// including the last, then a newline; no escaping.
	FormatPipe
)

// TextEncoder is a RowWriter that appends rows as text to an internal
// buffer: dates as YYYY-MM-DD, decimals as -12.05.
type TextEncoder struct {
	format Format
	buf    []byte
	col    int // columns written in the current row
	// plain skips the search for bytes to escape: set for the generator's
	// rows, whose text never holds one (see plainText). The search was half
	// of the CPU time of encoding SF 1 as COPY text.
	plain bool
}

// NewTextEncoder returns an empty encoder for format.
func NewTextEncoder(format Format) *TextEncoder {
	return &TextEncoder{format: format, buf: make([]byte, 0, 64<<10)}
}

// Bytes returns the encoded rows; valid until the next write or Reset.
func (e *TextEncoder) Bytes() []byte { return e.buf }

// Len is the number of encoded bytes.
func (e *TextEncoder) Len() int { return len(e.buf) }

// Reset empties the buffer.
func (e *TextEncoder) Reset() { e.buf, e.col = e.buf[:0], 0 }

// discard drops the first n encoded bytes, between rows.
func (e *TextEncoder) discard(n int) { e.buf = e.buf[:copy(e.buf, e.buf[n:])] }

func (e *TextEncoder) sep() {
	if e.format == FormatCopy && e.col > 0 {
		e.buf = append(e.buf, '\t')
	}
	e.col++
}

func (e *TextEncoder) end() {
	if e.format == FormatPipe {
		e.buf = append(e.buf, '|')
	}
}

// Int writes an integer value.
func (e *TextEncoder) Int(v int64) {
	e.sep()
	e.buf = strconv.AppendInt(e.buf, v, 10)
	e.end()
}

// Text writes a string value, escaped for COPY.
func (e *TextEncoder) Text(b []byte) {
	e.sep()
	if e.format == FormatCopy && !e.plain && needsEscape(b) {
		for _, c := range b {
			switch c {
			case '\\':
				e.buf = append(e.buf, '\\', '\\')
			case '\t':
				e.buf = append(e.buf, '\\', 't')
			case '\n':
				e.buf = append(e.buf, '\\', 'n')
			case '\r':
				e.buf = append(e.buf, '\\', 'r')
			default:
				e.buf = append(e.buf, c)
			}
		}
	} else {
		e.buf = append(e.buf, b...)
	}
	e.end()
}

// copySpecial marks the bytes COPY text format escapes.
var copySpecial = [256]bool{'\\': true, '\t': true, '\n': true, '\r': true}

func needsEscape(b []byte) bool {
	for _, c := range b {
		if copySpecial[c] {
			return true
		}
	}
	return false
}

// Null writes SQL NULL (\N in COPY format, an empty field in pipe format).
// The generator never emits NULLs; it is here for other row producers.
func (e *TextEncoder) Null() {
	e.sep()
	if e.format == FormatCopy {
		e.buf = append(e.buf, '\\', 'N')
	}
	e.end()
}

// Decimal writes a two-decimal value given in hundredths.
func (e *TextEncoder) Decimal(h int64) {
	e.sep()
	e.buf = appendDecimal(e.buf, h)
	e.end()
}

func appendDecimal(b []byte, h int64) []byte {
	u := uint64(h)
	if h < 0 {
		b = append(b, '-')
		u = uint64(-h)
	}
	b = strconv.AppendUint(b, u/100, 10)
	c := u % 100
	return append(b, '.', byte('0'+c/10), byte('0'+c%10))
}

// Date writes a day number (days since 1970-01-01) as YYYY-MM-DD.
func (e *TextEncoder) Date(days int32) {
	e.sep()
	if i := uint32(days - startDay); i < uint32(len(dateTexts)) {
		e.buf = append(e.buf, dateTexts[i][:]...)
	} else {
		e.buf = appendDate(e.buf, days)
	}
	e.end()
}

// dateTexts holds the text of every day from STARTDATE (1992-01-01) for
// 4,096 days, past the last date the generator writes (receipt dates end in
// 1998-12): three of LINEITEM's 16 columns are dates, and a copy is cheaper
// than the calendar arithmetic.
var dateTexts = func() (t [4096][10]byte) {
	for i := range t {
		copy(t[i][:], appendDate(nil, startDay+int32(i)))
	}
	return t
}()

// appendDate formats a Unix day number in the proleptic Gregorian calendar
// (civil-from-days, no allocation).
func appendDate(b []byte, days int32) []byte {
	z := int64(days) + 719468
	era := z / 146097
	if z < 0 && z%146097 != 0 {
		era--
	}
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	y := yoe + era*400
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	d := doy - (153*mp+2)/5 + 1
	m := mp + 3
	if m > 12 {
		m -= 12
	}
	if m <= 2 {
		y++
	}
	b = appendPad(b, y, 4)
	b = append(b, '-', byte('0'+m/10), byte('0'+m%10), '-', byte('0'+d/10), byte('0'+d%10))
	return b
}

// EndRow terminates the row with a newline.
func (e *TextEncoder) EndRow() error {
	e.buf = append(e.buf, '\n')
	e.col = 0
	return nil
}

// NewReader streams src's rows as text in format: rows are generated only as
// Read asks for bytes (pull-based). Read returns ctx's error once ctx is done.
func NewReader(ctx context.Context, src *Source, format Format) io.Reader {
	enc := NewTextEncoder(format)
	// A Source's text is plain: every byte of it comes from dbgen's word
	// lists, its text pool (made of those words) or its alphabets, none of
	// which holds a tab, newline, carriage return or backslash
	// (TestGeneratedTextIsPlain).
	enc.plain = true
	return &rowReader{ctx: ctx, src: src, enc: enc}
}

// newCountingReader is NewReader that also adds its rows to count as it
// encodes them (for a build's progress).
func newCountingReader(ctx context.Context, src *Source, format Format, count *atomic.Int64) *rowReader {
	r := NewReader(ctx, src, format).(*rowReader)
	r.count = count
	return r
}

type rowReader struct {
	ctx  context.Context
	src  *Source
	enc  rowEncoder
	off  int // bytes of enc's buffer already returned
	done bool
	err  error
	// binary: a PostgreSQL binary COPY stream, which opens with a header and
	// closes with a trailer.
	binary, started bool
	// count, if set, is added the rows as they are encoded; rows is this
	// reader's own total.
	count *atomic.Int64
	rows  int64
}

// rowEncoder is an encoder rowReader fills and drains.
type rowEncoder interface {
	RowWriter
	Bytes() []byte
	Len() int
	Reset()
	// discard drops the first n bytes, keeping the rest at the start.
	discard(n int)
}

// fillTarget is how much text Read encodes ahead when its buffer runs dry.
const fillTarget = 64 << 10

// Read fills p whole while rows remain: the rows that did not fit the last
// Read start the next one, and rows are encoded after them until p is full.
// A COPY sends each Read as one message and one write to the socket (pgx
// reads into a 64 KiB buffer): when a Read returned only the remainder of
// the previous fill, every other message was a few bytes.
func (r *rowReader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if r.enc.Len()-r.off < len(p) && !r.done && r.err == nil {
		if err := r.ctx.Err(); err != nil {
			r.err = err
		} else {
			r.fill(max(len(p), fillTarget))
		}
	}
	if r.off >= r.enc.Len() {
		if r.err != nil {
			return 0, r.err
		}
		return 0, io.EOF
	}
	n := copy(p, r.enc.Bytes()[r.off:])
	r.off += n
	return n, nil
}

// fill drops the bytes already read and encodes rows after the rest until
// the buffer holds target bytes or the rows end.
func (r *rowReader) fill(target int) {
	r.enc.discard(r.off)
	r.off = 0
	if r.binary && !r.started {
		r.started = true
		be := r.enc.(*binaryEncoder)
		be.buf = append(be.buf, pgBinaryHeader...)
	}
	var rows int64
	for r.enc.Len() < target {
		ok, err := r.src.Next(r.enc)
		if err != nil {
			r.err = err
			break
		}
		if !ok {
			r.done = true
			if r.binary {
				be := r.enc.(*binaryEncoder)
				be.buf = append(be.buf, 0xff, 0xff) // the trailer: a tuple of -1 fields
			}
			break
		}
		rows++
	}
	r.rows += rows
	if r.count != nil {
		r.count.Add(rows)
	}
}
