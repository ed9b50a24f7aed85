package script

// A job's HammerDB dictionary: `jobs ID dict`, from the settings a `sledge
// cli` script recorded or derived from Sledge's own (derivedDict).

import (
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/sledge-bench/sledge/internal/config"
	"github.com/sledge-bench/sledge/internal/jobs"
)

// dict is `jobs ID dict`: as HammerDB, the whole dictionary of the job's
// database at the time of the job — its connection dict and the
// benchmark's, every key in HammerDB's order with HammerDB's default (from
// the key table) overlaid by the settings the job was started with from
// `sledge cli`, else by Sledge's settings of the job in HammerDB's keys
// (derivedDict). Passwords (keys ending in "pass") are shown as xxxxx.
// Embedded databases, which HammerDB has no dictionary for, show the
// derived settings only.
func (r *run) dict(j jobs.Job) error {
	cfg, err := r.Repo.Config(r.ctx, j.ID)
	if err != nil {
		return err
	}
	recorded := map[string]map[string]string{}
	prefix := ""
	for k, v := range cfg {
		if rest, ok := strings.CutPrefix(k, ConfigPrefix); ok {
			d, key, ok := strings.Cut(rest, ".")
			if !ok {
				continue
			}
			if recorded[d] == nil {
				recorded[d] = map[string]string{}
			}
			recorded[d][key] = v
			if p, _, ok := strings.Cut(key, "_"); ok && slices.Contains(dictOrder, d) {
				prefix = p
			}
		}
	}
	set := recorded
	if len(recorded) == 0 {
		set = derivedDict(j, cfg)
	}
	bench := "tpcc"
	if j.Workload == "tproch" {
		bench = "tpch"
	}
	var o object
	if db, ok := jobDatabase(j, cfg[ConfigDB], prefix); ok {
		for _, d := range db.Dicts {
			if d.Name == "connection" || d.Name == bench {
				o.add(d.Name, dictObject(d, set[d.Name]))
			}
		}
		r.show(o, false)
		return nil
	}
	for _, d := range slices.Sorted(maps.Keys(set)) {
		o.add(d, dictObject(Dict{Name: d}, set[d]))
	}
	r.show(o, false)
	return nil
}

// jobDatabase is the key table of a job's database: the one its script
// chose (ConfigDB, or the prefix of its recorded settings), else the one of
// its server (pg; maria for a MariaDB server, mysql for MySQL).
func jobDatabase(j jobs.Job, chosen, prefix string) (Database, bool) {
	for _, d := range Databases() {
		if strings.EqualFold(chosen, d.Name) || strings.EqualFold(chosen, d.Product) {
			return d, true
		}
	}
	if prefix != "" {
		return DatabaseNamed(prefix)
	}
	switch {
	case j.DBKind == "postgres":
		return DatabaseNamed("pg")
	case j.DBKind == "mysql" && strings.Contains(j.DBVersion, "MariaDB"):
		return DatabaseNamed("maria")
	case j.DBKind == "mysql":
		return DatabaseNamed("mysql")
	}
	return Database{}, false
}

// dictObject is one dictionary of jobs ID dict: d's keys with their
// defaults overlaid by set, then the keys of set the table does not have
// (sorted); passwords redacted.
func dictObject(d Dict, set map[string]string) object {
	var o object
	add := func(k, v string) {
		if strings.HasSuffix(strings.ToLower(k), "pass") && v != "" {
			v = "xxxxx"
		}
		o.add(k, v)
	}
	for _, k := range d.Keys {
		v, ok := set[k.Name]
		if !ok {
			v = k.Default
		}
		add(k.Name, v)
	}
	for _, k := range slices.Sorted(maps.Keys(set)) {
		if _, ok := lookup([]Dict{d}, d.Name, k); !ok {
			add(k, set[k])
		}
	}
	return o
}

// derivedDict writes Sledge's recorded settings of a job in HammerDB's
// dictionary keys, for jobs not started from `sledge cli`: the inverse of
// the mapping of hammer.go where there is one.
func derivedDict(j jobs.Job, cfg map[string]string) map[string]map[string]string {
	prefix := map[string]string{"postgres": "pg_", "mysql": "mysql_", "sqlite": "sqlite_", "duckdb": "duckdb_"}[j.DBKind]
	if strings.Contains(j.DBVersion, "MariaDB") {
		prefix = "maria_"
	}
	conn := map[string]string{}
	bench := map[string]string{}
	tpch := j.Workload == "tproch"
	userKey, passKey, dbKey := "user", "pass", "dbase"
	if tpch {
		userKey, passKey, dbKey = "tpch_user", "tpch_pass", "tpch_dbase"
	}
	if u, err := url.Parse(j.Target); err == nil && (u.Host != "" || u.Query().Get("socket") != "") {
		if u.Host != "" {
			conn[prefix+"host"] = u.Hostname()
			conn[prefix+"port"] = u.Port()
		}
		bench[prefix+userKey] = u.User.Username()
		if _, ok := u.User.Password(); ok {
			bench[prefix+passKey] = "xxxxx"
		}
		bench[prefix+dbKey] = strings.TrimPrefix(u.Path, "/")
		q := u.Query()
		if s := q.Get("socket"); s != "" {
			conn[prefix+"socket"] = s
		}
		if m := q.Get("sslmode"); m != "" && prefix == "pg_" {
			conn[prefix+"sslmode"] = m
		}
	} else {
		conn[prefix+"file"] = strings.TrimPrefix(strings.TrimPrefix(j.Target, j.DBKind+":"), "file:")
	}
	minutes := func(key string) {
		if d, err := time.ParseDuration(cfg[key]); err == nil {
			bench[prefix+key] = number(d.Minutes(), 4)
		}
	}
	set := func(hkey, skey string) {
		if v, ok := cfg[skey]; ok && v != "" {
			bench[prefix+hkey] = v
		}
	}
	switch {
	case tpch && j.Kind == jobs.KindBuild:
		set("scale_fact", "scale")
		set("num_tpch_threads", "workers")
	case tpch:
		set("total_querysets", "query_sets")
		set("refresh_on", "refresh")
	case j.Kind == jobs.KindBuild:
		set("count_ware", "warehouses")
		set("num_vu", "workers")
		if prefix != "pg_" {
			set("storage_engine", "engine")
		}
	case j.Kind == jobs.KindRun:
		set("count_ware", "warehouses")
		if n := cfg["iterations"]; n != "" && n != "0" {
			bench[prefix+"driver"] = "test"
			bench[prefix+"total_iterations"] = n
		} else {
			bench[prefix+"driver"] = "timed"
			minutes("rampup")
			minutes("duration")
		}
		if m := cfg["mode"]; m != "" && prefix != "pg_" {
			// PostgreSQL's storedprocs chooses procedures or functions,
			// not client SQL: nothing to say for pg.
			bench[prefix+"no_stored_procs"] = strconv.FormatBool(m == "sql")
		}
		if p := cfg["pacing"]; p != "" {
			bench[prefix+"keyandthink"] = strconv.FormatBool(strings.HasPrefix(p, "spec"))
		}
		// Paced terminals, a whole number per session: HammerDB's
		// asynchronous clients per VU.
		terms, _ := strconv.Atoi(cfg["terminals"])
		conns, _ := strconv.Atoi(cfg["connections"])
		if cfg["load_model"] == config.LoadTerminals && strings.HasPrefix(cfg["pacing"], "spec") && conns > 0 && terms%conns == 0 {
			bench[prefix+"async_scale"] = "true"
			bench[prefix+"async_client"] = strconv.Itoa(terms / conns)
		}
		if v, err := strconv.ParseBool(cfg["random_home"]); err == nil {
			// HammerDB's default is a random home warehouse per VU;
			// allwarehouse true is the nearest to Sledge's even spread.
			bench[prefix+"allwarehouse"] = strconv.FormatBool(!v)
		}
		if cfg["per_vu_timing"] == "true" {
			bench[prefix+"timeprofile"] = "true"
		}
	}
	name := "tpcc"
	if tpch {
		name = "tpch"
	}
	return map[string]map[string]string{"connection": conn, name: bench}
}
