package tproch

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"strings"
	"testing"

	"github.com/sledge-bench/sledge/internal/db"
	"github.com/sledge-bench/sledge/internal/db/postgres"
	"github.com/sledge-bench/sledge/internal/testdb"
)

func TestAppendNumeric(t *testing.T) {
	t.Parallel()
	// Length, then ndigits, weight, sign, dscale and the base-10,000 digits.
	for _, tc := range []struct {
		h    int64
		want []uint16
	}{
		{0, []uint16{0, 0, 0, 2}},
		{1, []uint16{1, 0xffff, 0, 2, 100}},                          // 0.01
		{-99999, []uint16{2, 0, 0x4000, 2, 999, 9900}},               // -999.99
		{12345, []uint16{2, 0, 0, 2, 123, 4500}},                     // 123.45
		{100000000, []uint16{1, 1, 0, 2, 100}},                       // 1,000,000.00
		{100000001, []uint16{3, 1, 0, 2, 100, 0, 100}},               // 1,000,000.01
		{1234567890123, []uint16{4, 2, 0, 2, 123, 4567, 8901, 2300}}, // 12,345,678,901.23
	} {
		got := appendNumeric(nil, tc.h)
		var want []byte
		want = binary.BigEndian.AppendUint32(want, uint32(2*len(tc.want)))
		for _, v := range tc.want {
			want = binary.BigEndian.AppendUint16(want, v)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("appendNumeric(%d) = %x, want %x", tc.h, got, want)
		}
	}
}

// TestBinaryCopyMatchesText loads every SF 0.01 table and an RF1 set into
// PostgreSQL twice, as binary COPY (what a build sends) and as COPY text,
// and compares the two tables' rows as the server prints them: the binary
// encoding must store exactly what the text says, numeric display scale
// included.
func TestBinaryCopyMatchesText(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tg, err := db.ParseTarget(testdb.Postgres(t))
	if err != nil {
		t.Fatal(err)
	}
	c, err := postgres.Driver{}.Connect(ctx, tg, db.Options{Bulk: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	if err := execFile(ctx, c, "postgres", "schema.sql", "create table"); err != nil {
		t.Fatal(err)
	}
	g := mustGen(t, testSF)
	type load struct {
		name string
		t    Table
		src  func() (*Source, error)
	}
	var loads []load
	for _, tb := range Tables() {
		loads = append(loads, load{tb.String(), tb, func() (*Source, error) { return g.Source(tb, 0, 1) }})
	}
	loads = append(loads,
		load{"orders_u1", TableOrders, func() (*Source, error) { return g.RefreshSource(TableOrders, 1) }},
		load{"lineitem_u1", TableLineitem, func() (*Source, error) { return g.RefreshSource(TableLineitem, 1) }})
	tc := c.(db.TextCopier)
	for _, l := range loads {
		digest := map[string]string{}
		for _, format := range []string{"binary", "text"} {
			table := fmt.Sprintf("%s_%s", l.name, format)
			if _, err := c.Exec(ctx, fmt.Sprintf("CREATE TABLE %s (LIKE %s)", table, l.t)); err != nil {
				t.Fatal(err)
			}
			src, err := l.src()
			if err != nil {
				t.Fatal(err)
			}
			copySQL := "COPY " + table + " (" + joinColumns(l.t) + ") FROM STDIN"
			var r *rowReader
			if format == "binary" {
				copySQL += " (FORMAT binary)"
				r = newBinaryReader(ctx, src, nil)
			} else {
				r = newCountingReader(ctx, src, FormatCopy, nil)
			}
			n, err := tc.CopyText(ctx, copySQL, r)
			if err != nil {
				t.Fatalf("%s: %v", table, err)
			}
			if n != r.rows || n == 0 {
				t.Errorf("%s: %d rows loaded, %d encoded", table, n, r.rows)
			}
			var d string
			if err := c.QueryRow(ctx, fmt.Sprintf("SELECT count(*) || ' ' || md5(string_agg(x::text, E'\\n' ORDER BY x::text)) FROM %s x", table)).Scan(&d); err != nil {
				t.Fatal(err)
			}
			digest[format] = d
		}
		if digest["binary"] != digest["text"] {
			t.Errorf("%s: binary COPY loaded %s, COPY text %s (rows, md5)", l.name, digest["binary"], digest["text"])
		}
		if !strings.Contains(digest["text"], " ") {
			t.Errorf("%s: no digest", l.name)
		}
	}
}
