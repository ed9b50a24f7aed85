package tprocc

import (
	"context"
	"fmt"
	"io"
	"strconv"

	"github.com/sledge-bench/sledge/internal/workload"
)

// PipeEncoder is a RowWriter producing flat files in dbgen's style: every
// value followed by '|', one row per line, NULL as an empty value. TPROC-C's
// generated text never holds '|' or a newline, so nothing needs escaping.
type PipeEncoder struct {
	buf []byte
	now []byte
}

// NewPipeEncoder writes now (e.g. "2026-01-02 15:04:05") for Now.
func NewPipeEncoder(now string) *PipeEncoder {
	return &PipeEncoder{buf: make([]byte, 0, 256<<10), now: []byte(now)}
}

func (e *PipeEncoder) Bytes() []byte     { return e.buf }
func (e *PipeEncoder) Reset()            { e.buf = e.buf[:0] }
func (e *PipeEncoder) Int(v int64)       { e.buf = append(strconv.AppendInt(e.buf, v, 10), '|') }
func (e *PipeEncoder) Text(b []byte)     { e.buf = append(append(e.buf, b...), '|') }
func (e *PipeEncoder) Str(s string)      { e.buf = append(append(e.buf, s...), '|') }
func (e *PipeEncoder) Money(cents int64) { e.buf = append(appendFixed(e.buf, cents, 2), '|') }
func (e *PipeEncoder) Decimal4(v int64)  { e.buf = append(appendFixed(e.buf, v, 4), '|') }
func (e *PipeEncoder) Null()             { e.buf = append(e.buf, '|') }
func (e *PipeEncoder) Now()              { e.buf = append(append(e.buf, e.now...), '|') }
func (e *PipeEncoder) EndRow() error     { e.buf = append(e.buf, '\n'); return nil }

// bufferedEncoder is a RowWriter that keeps its rows in a buffer.
type bufferedEncoder interface {
	RowWriter
	Bytes() []byte
	Reset()
}

// flushingWriter passes rows to an encoder and writes its buffer out every
// megabyte, so a whole table never sits in memory.
type flushingWriter struct {
	bufferedEncoder
	w io.Writer
}

func (f *flushingWriter) EndRow() error {
	if err := f.bufferedEncoder.EndRow(); err != nil {
		return err
	}
	if len(f.Bytes()) >= 1<<20 {
		return f.flush()
	}
	return nil
}

func (f *flushingWriter) flush() error {
	if _, err := f.w.Write(f.Bytes()); err != nil {
		return err
	}
	f.Reset()
	return nil
}

// WriteFlatFile writes table t's rows for warehouses first..last (ITEM:
// ignores them) to w in format: dbgen-style '|'-delimited lines, or COPY
// text.
func (g *Generator) WriteFlatFile(ctx context.Context, w io.Writer, t Table, first, last int, now string, format workload.DataFormat) (int64, error) {
	fw := &flushingWriter{bufferedEncoder: NewPipeEncoder(now), w: w}
	if format == workload.DataCopy {
		fw.bufferedEncoder = NewCopyEncoder(now)
	}
	var total int64
	if !t.PerWarehouse() {
		first, last = 0, 0
	}
	for wh := first; wh <= last; wh++ {
		n, err := g.WriteRows(ctx, t, wh, fw)
		total += n
		if err != nil {
			return total, fmt.Errorf("%s of warehouse %d: %w", t, wh, err)
		}
	}
	return total, fw.flush()
}
