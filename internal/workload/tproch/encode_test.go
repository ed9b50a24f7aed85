package tproch

import (
	"bytes"
	"context"
	"errors"
	"io"
	"testing"
	"testing/iotest"
	"time"
)

func TestTextEncoderFormats(t *testing.T) {
	t.Parallel()
	row := func(e *TextEncoder) {
		e.Int(-42)
		e.Text([]byte("a\tb\\c\nd\re|f"))
		e.Decimal(-1205)
		e.Decimal(5)
		e.Decimal(-5)
		e.Decimal(0)
		e.Decimal(99999999999)
		e.Date(0)
		e.Date(8035)  // 1992-01-01
		e.Date(10440) // 1998-08-02
		e.Date(-1)    // 1969-12-31
		e.Date(11016) // 2000-02-29
		e.Null()
		e.EndRow()
	}
	for _, tc := range []struct {
		f    Format
		want string
	}{
		{FormatCopy, "-42\ta\\tb\\\\c\\nd\\re|f\t-12.05\t0.05\t-0.05\t0.00\t999999999.99\t1970-01-01\t" +
			"1992-01-01\t1998-08-02\t1969-12-31\t2000-02-29\t\\N\n"},
		{FormatPipe, "-42|a\tb\\c\nd\re|f|-12.05|0.05|-0.05|0.00|999999999.99|1970-01-01|" +
			"1992-01-01|1998-08-02|1969-12-31|2000-02-29||\n"},
	} {
		e := NewTextEncoder(tc.f)
		row(e)
		row(e)
		if got := string(e.Bytes()); got != tc.want+tc.want {
			t.Errorf("format %d:\n got %q\nwant %q", tc.f, got, tc.want+tc.want)
		}
		e.Reset()
		if e.Len() != 0 {
			t.Error("Reset left bytes")
		}
	}
}

func TestAppendDateRange(t *testing.T) {
	t.Parallel()
	// Every generated day against time's formatting.
	for d := int32(8035 - 400); d <= 8035+2557+400; d++ {
		want := dayString(d)
		if got := string(appendDate(nil, d)); got != want {
			t.Fatalf("day %d: %s, want %s", d, got, want)
		}
	}
}

func dayString(d int32) string {
	var b []byte
	tm := timeOfDay(d)
	return string(tm.AppendFormat(b, "2006-01-02"))
}

func TestReaderMatchesEncoder(t *testing.T) {
	t.Parallel()
	g := mustGen(t, 0.01)
	for _, f := range []Format{FormatCopy, FormatPipe} {
		for _, tb := range []Table{TableNation, TableOrders, TableLineitem} {
			src, _ := g.Source(tb, 0, 1)
			e := NewTextEncoder(f)
			for {
				ok, err := src.Next(e)
				if err != nil {
					t.Fatal(err)
				}
				if !ok {
					break
				}
			}
			src, _ = g.Source(tb, 0, 1)
			got, err := io.ReadAll(iotest.OneByteReader(NewReader(context.Background(), src, f)))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, e.Bytes()) {
				t.Errorf("%v format %d: reader output differs from encoder", tb, f)
			}
			src, _ = g.Source(tb, 0, 1)
			if err := iotest.TestReader(NewReader(context.Background(), src, f), e.Bytes()); err != nil {
				t.Errorf("%v: %v", tb, err)
			}
		}
	}
}

func TestReaderCancel(t *testing.T) {
	t.Parallel()
	g := mustGen(t, 0.01)
	src, _ := g.Source(TableLineitem, 0, 1)
	ctx, cancel := context.WithCancel(context.Background())
	r := NewReader(ctx, src, FormatCopy)
	buf := make([]byte, 1024)
	if _, err := r.Read(buf); err != nil {
		t.Fatal(err)
	}
	cancel()
	var err error
	for i := 0; i < 1000 && err == nil; i++ {
		_, err = r.Read(buf)
	}
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("after cancel: %v", err)
	}
}

func timeOfDay(d int32) time.Time { return time.Unix(int64(d)*86400, 0).UTC() }

// TestReaderFillsEveryRead: each Read but the last fills its buffer, in both
// the text and the binary form, so that a COPY's messages are all full (pgx
// reads into 65,531 bytes). Before, a Read after a fill returned only the
// fill's few bytes past the previous Read.
func TestReaderFillsEveryRead(t *testing.T) {
	t.Parallel()
	g := mustGen(t, 0.01)
	for _, binary := range []bool{false, true} {
		src, _ := g.Source(TableLineitem, 0, 1)
		r := NewReader(context.Background(), src, FormatCopy)
		if binary {
			r = newBinaryReader(context.Background(), src, nil)
		}
		buf := make([]byte, 65531)
		var short, reads int
		for {
			n, err := r.Read(buf)
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			reads++
			if n < len(buf) {
				short++
			}
		}
		if reads < 10 || short != 1 {
			t.Errorf("binary %v: %d of %d reads short of the buffer, want only the last", binary, short, reads)
		}
	}
}
