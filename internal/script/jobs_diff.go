package script

// `jobs diff basepid comppid`: two performance profiles' NOPM compared at
// the virtual-user counts both have run.

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// diff compares two profiles' NOPM at the virtual-user counts both have run
// and returns the comparison's relative difference (+0.05: 5% more).
func (r *run) diff(args []string) error {
	r.ret = "null"
	if len(args) < 2 || len(args) > 3 {
		r.println("Error: Usage: jobs diff basepid comppid [true|false]")
		return nil
	}
	base, err := strconv.Atoi(args[0])
	if err != nil || base <= 0 {
		r.println("Error: good profile id must be an integer > 0")
		return nil
	}
	comp, err := strconv.Atoi(args[1])
	if err != nil || comp <= 0 {
		r.println("Error: bad profile id must be an integer > 0")
		return nil
	}
	if len(args) == 3 && strings.EqualFold(args[2], "true") {
		r.println("Notice: jobs diff weighted: Sledge compares profiles unweighted")
	}
	// HammerDB takes each profile's NOPM (as its TEST RESULT line rounds
	// it) at each active VU count from its results, a later job's replacing
	// an earlier one's.
	byVU := func(pid int) (map[int]float64, error) {
		js, err := r.profileJobs(pid)
		if err != nil {
			return nil, err
		}
		m := map[int]float64{}
		for _, j := range js {
			res, err := r.Repo.RunResult(r.ctx, j.ID)
			if err != nil {
				return nil, err
			}
			if res != nil {
				m[res.VUs] = math.Round(hammerNOPM(res))
			}
		}
		return m, nil
	}
	b, err := byVU(base)
	if err != nil {
		return err
	}
	if len(b) == 0 {
		r.println("Error: no jobs found for good profile id %d", base)
		return nil
	}
	c, err := byVU(comp)
	if err != nil {
		return err
	}
	if len(c) == 0 {
		r.println("Error: no jobs found for bad profile id %d", comp)
		return nil
	}
	var matched int
	var sumB, sumC float64
	for vu, nb := range b {
		if nc, ok := c[vu]; ok {
			matched++
			sumB += nb
			sumC += nc
		}
	}
	if matched == 0 {
		r.println("Error: the two profiles have no overlapping activevu points")
		return nil
	}
	if sumB == 0 {
		r.println("Error: good profile average NOPM is zero; cannot compute ratio")
		return nil
	}
	avgB, avgC := sumB/float64(matched), sumC/float64(matched)
	r.println("Profiles compared (unweighted): matched=%d, avg_base=%.0f, avg_comp=%.0f", matched, avgB, avgC)
	r.ret = diffRatio(avgC/avgB - 1)
	return nil
}

// diffRatio writes a relative difference as HammerDB does: two decimals
// with a sign ("+0.10", "-0.03"), four when two would read zero, "0.00"
// for none.
func diffRatio(d float64) string {
	s := fmt.Sprintf("%.2f", d)
	if s == "0.00" || s == "-0.00" {
		switch s4 := fmt.Sprintf("%+.4f", d); {
		case d == 0:
			return "0.00"
		case s4 == "+0.0000" || s4 == "-0.0000":
			return "0.0000"
		default:
			return s4
		}
	}
	if d > 0 {
		return "+" + s
	}
	return s
}
