package main

import (
	"runtime"
	"testing"
)

func TestClientCPUs(t *testing.T) {
	n := runtime.NumCPU()
	cases := []struct {
		flag, vus, want int
	}{
		{0, 1, 1},
		{0, 16, 1},
		{0, 17, min(2, n)},
		{0, 10000, n},
		{1, 500, 1},
		{n + 5, 4, n},
	}
	for _, c := range cases {
		got, err := clientCPUs(c.flag, c.vus)
		if err != nil || got != c.want {
			t.Errorf("clientCPUs(%d, %d) = %d, %v; want %d", c.flag, c.vus, got, err, c.want)
		}
	}
	if _, err := clientCPUs(-1, 4); err == nil {
		t.Error("negative --client-cpus accepted")
	}
}
