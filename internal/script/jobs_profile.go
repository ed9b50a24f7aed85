package script

// Performance profiles: `jobs profileid [id|all]` and `jobs profile ID`, the
// completed TPROC-C runs recorded under a profile id.

import (
	"sort"
	"strconv"
	"strings"

	"github.com/sledge-bench/sledge/internal/jobs"
)

func (r *run) profileID(args []string) error {
	switch {
	case len(args) == 0:
		r.println("Performance profile id set to %d", r.s.ProfileID)
	case strings.EqualFold(args[0], "all"):
		ids, err := r.profileIDs()
		if err != nil {
			return err
		}
		if len(ids) == 0 {
			r.println("No performance profiles found")
			return nil
		}
		v := make(list, len(ids))
		for i, id := range ids {
			v[i] = strconv.Itoa(id)
		}
		r.show(v, true)
	default:
		n, err := strconv.Atoi(args[0])
		if err != nil || n < 0 || len(args) > 1 {
			r.println("Error: Performance profile id should be an integer")
			return nil
		}
		r.s.ProfileID = n
		r.println("Setting performance profile id to %d", n)
	}
	return nil
}

// profileJobs returns the completed TPROC-C runs recorded under a profile.
func (r *run) profileJobs(pid int) ([]jobs.Job, error) {
	all, err := r.oldestFirst()
	if err != nil {
		return nil, err
	}
	var out []jobs.Job
	for _, j := range all {
		if j.Kind != jobs.KindRun || j.Workload == "tproch" || j.Headline == nil {
			continue
		}
		cfg, err := r.Repo.Config(r.ctx, j.ID)
		if err != nil {
			return nil, err
		}
		if cfg[ConfigProfileID] == strconv.Itoa(pid) {
			out = append(out, j)
		}
	}
	return out, nil
}

func (r *run) profileIDs() ([]int, error) {
	all, err := r.Repo.List(r.ctx, jobs.ListFilter{Kind: jobs.KindRun})
	if err != nil {
		return nil, err
	}
	seen := map[int]bool{}
	for _, j := range all {
		cfg, err := r.Repo.Config(r.ctx, j.ID)
		if err != nil {
			return nil, err
		}
		if n, err := strconv.Atoi(cfg[ConfigProfileID]); err == nil && n > 0 {
			seen[n] = true
		}
	}
	ids := make([]int, 0, len(seen))
	for id := range seen {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	return ids, nil
}

func (r *run) profile(args []string) error {
	if len(args) != 1 {
		r.println("Error: Performance profile id should be an integer greater than 0")
		return nil
	}
	pid, err := strconv.Atoi(args[0])
	if err != nil || pid <= 0 {
		r.println("Error: Performance profile id should be an integer greater than 0")
		return nil
	}
	js, err := r.profileJobs(pid)
	if err != nil {
		return err
	}
	if len(js) == 0 {
		r.println("Error: No jobs found with performance profile id of %d", pid)
		return nil
	}
	return r.showResults(js)
}
