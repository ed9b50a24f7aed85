package pgscript

import (
	"context"
	"testing"
)

// nopConn answers every query at once.
type nopConn struct{}

func (nopConn) Exec(context.Context, *Query) ([]Result, error) { return nil, nil }
func (nopConn) InTransaction() bool                            { return false }

// BenchmarkTPCBLike measures the client's own cost of one tpcb-like
// transaction (four \set, seven statements), without a server.
func BenchmarkTPCBLike(b *testing.B) {
	for _, mode := range []QueryMode{Simple, Prepared} {
		b.Run(mode.String(), func(b *testing.B) {
			s, err := Builtin("tpcb-like")
			if err != nil {
				b.Fatal(err)
			}
			setup, err := New(Config{Scripts: []Weighted{{s, 1}}, Clients: 1, Mode: mode})
			if err != nil {
				b.Fatal(err)
			}
			c := setup.Clients()[0]
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.Run(ctx, nopConn{}, c.Choose()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
