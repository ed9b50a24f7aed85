package script

import (
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// HammerDB's key table: every key of HammerDB 6's dictionaries for the
// databases Sledge drives (its config/postgresql.xml, mariadb.xml and
// mysql.xml: the connection, tpcc and tpch dicts that diset changes) and of
// its generic dictionaries (config/generic.xml, changed with giset), with
// HammerDB's default and what Sledge does with it. It is the one source of
// the keys: the mapping onto a job (hammer.go) takes its defaults from it,
// the Tcl and Python front ends refuse unknown dictionaries and keys with
// it (`sledge cli keys`, TclKeys), `jobs ID dict` fills in the defaults
// from it and the README's compatibility table is generated from it.

// Treatment is what Sledge does with a HammerDB key.
type Treatment string

const (
	// Maps: the key sets part of the job (a spec field, the connection) or
	// of the session.
	Maps Treatment = "maps"
	// Notice: accepted; set to anything but HammerDB's default, the action
	// it concerns prints the key's text as a notice, once.
	Notice Treatment = "notice"
	// NoEffect: accepted without a notice, because Sledge already does what
	// the key asks for or the key concerns HammerDB's GUI.
	NoEffect Treatment = "no effect"
)

// When a key matters: the actions whose notices name it.
const (
	Always = ""      // every action
	Build  = "build" // buildschema
	Run    = "run"   // vurun, steprun
)

// Key is one HammerDB key of a dictionary.
type Key struct {
	Name      string    `json:"key"`
	Default   string    `json:"default"`
	Treatment Treatment `json:"treatment"`
	When      string    `json:"when,omitempty"`
	// Sledge says what Sledge does: what the key maps onto, the notice
	// (Notice), or why no notice is needed (NoEffect).
	Sledge string `json:"sledge"`
}

// Dict is one of HammerDB's dictionaries, its keys in HammerDB's order.
type Dict struct {
	Name string `json:"dict"`
	Keys []Key  `json:"keys"`
}

// Database is a database's dictionaries (`dbset db NAME`).
type Database struct {
	Name    string `json:"db"`      // pg | maria | mysql
	Product string `json:"product"` // PostgreSQL | MariaDB | MySQL
	Prefix  string `json:"prefix"`  // pg_ | maria_ | mysql_
	Dicts   []Dict `json:"dicts"`
}

// Lookup finds a key in the dictionary named dict.
func (d Database) Lookup(dict, key string) (Key, bool) {
	return lookup(d.Dicts, dict, key)
}

// DictOf names the dictionary that holds key ("" for none).
func (d Database) DictOf(key string) string {
	for _, dc := range d.Dicts {
		for _, k := range dc.Keys {
			if k.Name == key {
				return dc.Name
			}
		}
	}
	return ""
}

func lookup(dicts []Dict, dict, key string) (Key, bool) {
	for _, dc := range dicts {
		if dc.Name != dict {
			continue
		}
		for _, k := range dc.Keys {
			if k.Name == key {
				return k, true
			}
		}
	}
	return Key{}, false
}

// Databases returns the key table of pg, maria and mysql.
func Databases() []Database {
	out := make([]Database, 0, len(dbKeys))
	for _, db := range dbKeys {
		d := Database{Name: db.name, Product: db.product, Prefix: db.name + "_"}
		for _, kd := range db.keys {
			t, ok := dbTreatments[kd.name]
			if !ok {
				panic("script: no treatment for HammerDB key " + kd.name) // caught by TestEveryKeyHasATreatment
			}
			k := Key{Name: d.Prefix + kd.name, Default: kd.def, Treatment: t.treatment, When: t.when,
				Sledge: strings.ReplaceAll(t.sledge, "{p}", d.Prefix)}
			if n := len(d.Dicts); n == 0 || d.Dicts[n-1].Name != kd.dict {
				d.Dicts = append(d.Dicts, Dict{Name: kd.dict})
			}
			d.Dicts[len(d.Dicts)-1].Keys = append(d.Dicts[len(d.Dicts)-1].Keys, k)
		}
		out = append(out, d)
	}
	return out
}

// DatabaseNamed returns the key table of a `dbset db` name (pg, maria,
// mysql; also postgres, postgresql, mariadb).
func DatabaseNamed(name string) (Database, bool) {
	switch strings.ToLower(name) {
	case "", "pg", "postgres", "postgresql":
		name = "pg"
	case "maria", "mariadb":
		name = "maria"
	}
	for _, d := range Databases() {
		if d.Name == name {
			return d, true
		}
	}
	return Database{}, false
}

// GenericDicts returns HammerDB's generic dictionaries (giset).
func GenericDicts() []Dict {
	out := make([]Dict, 0, len(genericKeys))
	for _, g := range genericKeys {
		d := Dict{Name: g.dict}
		for _, kd := range g.keys {
			d.Keys = append(d.Keys, Key{Name: kd.name, Default: kd.def, Treatment: g.treatment, Sledge: g.sledge})
		}
		if len(out) > 0 && out[len(out)-1].Name == d.Name {
			out[len(out)-1].Keys = append(out[len(out)-1].Keys, d.Keys...)
			continue
		}
		out = append(out, d)
	}
	return out
}

// KeyTable is the whole table, as `sledge cli keys` prints it (JSON) for
// the Python front end.
type KeyTable struct {
	Databases []Database `json:"databases"`
	Generic   []Dict     `json:"generic"`
}

// Keys returns the whole table.
func Keys() KeyTable { return KeyTable{Databases: Databases(), Generic: GenericDicts()} }

// KeysJSON is the table as JSON, lists keeping HammerDB's order.
func KeysJSON() ([]byte, error) {
	b, err := json.MarshalIndent(Keys(), "", "  ")
	if err != nil {
		return nil, fmt.Errorf("key table: %w", err)
	}
	return append(b, '\n'), nil
}

// WriteKeys writes the table as `sledge cli keys` prints it: as JSON
// (KeysJSON) for the Python front end, or (tcl) as Tcl (TclKeys).
func WriteKeys(w io.Writer, tcl bool) error {
	if tcl {
		_, err := io.WriteString(w, TclKeys())
		return err
	}
	b, err := KeysJSON()
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// TclKeys is Tcl source that defines the table for the Tcl prelude (each
// word quoted as a Tcl list element, see tclWord):
// ::sledge::keytable (db → {product P dicts {DICT {KEY DEFAULT …} …}}) and
// ::sledge::generictable (DICT → {KEY DEFAULT …}), in HammerDB's order.
// `sledge cli` runs it before the prelude.
func TclKeys() string {
	var b strings.Builder
	b.WriteString("# HammerDB's dictionaries and defaults, written by sledge from internal/script/keys.go.\n")
	b.WriteString("namespace eval ::sledge { variable keytable [dict create]; variable generictable [dict create] }\n")
	for _, d := range Databases() {
		fmt.Fprintf(&b, "dict set ::sledge::keytable %s product %s\n", tclWord(d.Name), tclWord(d.Product))
		for _, dc := range d.Dicts {
			for _, k := range dc.Keys {
				fmt.Fprintf(&b, "dict set ::sledge::keytable %s dicts %s %s %s\n", tclWord(d.Name), tclWord(dc.Name), tclWord(k.Name), tclWord(k.Default))
			}
		}
	}
	for _, dc := range GenericDicts() {
		for _, k := range dc.Keys {
			fmt.Fprintf(&b, "dict set ::sledge::generictable %s %s %s\n", tclWord(dc.Name), tclWord(k.Name), tclWord(k.Default))
		}
	}
	return b.String()
}

// isDefault says whether v means HammerDB's default def: booleans by
// truth (1 is true), numbers by value, other values as written.
func isDefault(v, def string) bool {
	v, def = strings.TrimSpace(v), strings.TrimSpace(def)
	if v == def {
		return true
	}
	if def == "true" || def == "false" {
		if b, ok := boolValue(v); ok {
			return b == (def == "true")
		}
		return false
	}
	x, errX := strconv.ParseFloat(v, 64)
	y, errY := strconv.ParseFloat(def, 64)
	return errX == nil && errY == nil && x == y
}

// boolValue reads a boolean as Tcl does (HammerDB's drivers test them in
// Tcl): true/false, yes/no, on/off and numbers.
func boolValue(s string) (value, ok bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "true", "yes", "on", "t", "y":
		return true, true
	case "false", "no", "off", "f", "n":
		return false, true
	}
	if x, err := strconv.ParseFloat(strings.TrimSpace(s), 64); err == nil {
		return x != 0, true
	}
	return false, false
}

// ------------------------------------------------------------ the table

// keyDefault is a key of HammerDB's config file, without the database's
// prefix, and its default there.
type keyDefault struct{ dict, name, def string }

// treatment is what Sledge does with a key; in sledge, {p} stands for the
// database's prefix.
type treatment struct {
	treatment Treatment
	when      string
	sledge    string
}

// dbKeys are the keys of HammerDB 6's config/postgresql.xml, mariadb.xml and
// mysql.xml, in their order (HammerDB's XML loader flattens each file into
// its connection, tpcc and tpch dictionaries).
var dbKeys = []struct {
	name, product string
	keys          []keyDefault
}{
	{"pg", "PostgreSQL", []keyDefault{
		{"connection", "host", "localhost"}, {"connection", "port", "5432"}, {"connection", "sslmode", "prefer"},
		{"tpcc", "count_ware", "1"}, {"tpcc", "num_vu", "1"}, {"tpcc", "superuser", "postgres"},
		{"tpcc", "superuserpass", "postgres"}, {"tpcc", "defaultdbase", "postgres"}, {"tpcc", "user", "tpcc"},
		{"tpcc", "pass", "tpcc"}, {"tpcc", "dbase", "tpcc"}, {"tpcc", "tspace", "pg_default"},
		{"tpcc", "vacuum", "false"}, {"tpcc", "dritasnap", "false"}, {"tpcc", "oracompat", "false"},
		{"tpcc", "cituscompat", "false"}, {"tpcc", "storedprocs", "false"}, {"tpcc", "partition", "false"},
		{"tpcc", "total_iterations", "10000000"}, {"tpcc", "raiseerror", "false"}, {"tpcc", "keyandthink", "false"},
		{"tpcc", "driver", "timed"}, {"tpcc", "rampup", "2"}, {"tpcc", "duration", "5"},
		{"tpcc", "allwarehouse", "false"}, {"tpcc", "timeprofile", "false"}, {"tpcc", "async_scale", "false"},
		{"tpcc", "async_client", "10"}, {"tpcc", "async_verbose", "false"}, {"tpcc", "async_delay", "1000"},
		{"tpcc", "connect_pool", "false"},
		{"tpch", "scale_fact", "1"}, {"tpch", "tpch_superuser", "postgres"}, {"tpch", "tpch_superuserpass", "postgres"},
		{"tpch", "tpch_defaultdbase", "postgres"}, {"tpch", "tpch_user", "tpch"}, {"tpch", "tpch_pass", "tpch"},
		{"tpch", "tpch_dbase", "tpch"}, {"tpch", "tpch_tspace", "pg_default"}, {"tpch", "tpch_gpcompat", "false"},
		{"tpch", "tpch_gpcompress", "false"}, {"tpch", "num_tpch_threads", "1"}, {"tpch", "total_querysets", "1"},
		{"tpch", "raise_query_error", "false"}, {"tpch", "verbose", "false"}, {"tpch", "refresh_on", "false"},
		{"tpch", "degree_of_parallel", "2"}, {"tpch", "update_sets", "1"}, {"tpch", "trickle_refresh", "1000"},
		{"tpch", "refresh_verbose", "false"}, {"tpch", "cloud_query", "false"}, {"tpch", "rs_compat", "false"},
	}},
	{"maria", "MariaDB", []keyDefault{
		{"connection", "host", "127.0.0.1"}, {"connection", "port", "3306"}, {"connection", "socket", "/tmp/mariadb.sock"},
		{"connection", "ssl", "false"}, {"connection", "ssl_two_way", "false"},
		{"connection", "ssl_linux_capath", "/etc/mysql/certs"}, {"connection", "ssl_windows_capath", `C:\mysql\certs`},
		{"connection", "ssl_ca", "ca-cert.pem"}, {"connection", "ssl_cert", "client-cert.pem"},
		{"connection", "ssl_key", "client-key.pem"}, {"connection", "ssl_cipher", "server"},
		{"tpcc", "count_ware", "1"}, {"tpcc", "num_vu", "1"}, {"tpcc", "user", "root"}, {"tpcc", "pass", "maria"},
		{"tpcc", "dbase", "tpcc"}, {"tpcc", "storage_engine", "innodb"}, {"tpcc", "partition", "false"},
		{"tpcc", "prepared", "false"}, {"tpcc", "no_stored_procs", "false"}, {"tpcc", "history_pk", "false"},
		{"tpcc", "total_iterations", "10000000"}, {"tpcc", "raiseerror", "false"}, {"tpcc", "keyandthink", "false"},
		{"tpcc", "driver", "timed"}, {"tpcc", "rampup", "2"}, {"tpcc", "duration", "5"},
		{"tpcc", "allwarehouse", "false"}, {"tpcc", "timeprofile", "false"}, {"tpcc", "async_scale", "false"},
		{"tpcc", "async_client", "10"}, {"tpcc", "async_verbose", "false"}, {"tpcc", "async_delay", "1000"},
		{"tpcc", "connect_pool", "false"}, {"tpcc", "purge", "false"},
		{"tpch", "scale_fact", "1"}, {"tpch", "tpch_user", "root"}, {"tpch", "tpch_pass", "maria"},
		{"tpch", "tpch_dbase", "tpch"}, {"tpch", "num_tpch_threads", "1"}, {"tpch", "tpch_storage_engine", "innodb"},
		{"tpch", "total_querysets", "1"}, {"tpch", "raise_query_error", "false"}, {"tpch", "verbose", "false"},
		{"tpch", "refresh_on", "false"}, {"tpch", "update_sets", "1"}, {"tpch", "trickle_refresh", "1000"},
		{"tpch", "refresh_verbose", "false"}, {"tpch", "cloud_query", "false"},
	}},
	{"mysql", "MySQL", []keyDefault{
		{"connection", "host", "127.0.0.1"}, {"connection", "port", "3306"}, {"connection", "socket", "/tmp/mysql.sock"},
		{"connection", "ssl", "false"}, {"connection", "ssl_two_way", "false"},
		{"connection", "ssl_linux_capath", "/etc/mysql/certs"}, {"connection", "ssl_windows_capath", `C:\mysql\certs`},
		{"connection", "ssl_ca", "ca-cert.pem"}, {"connection", "ssl_cert", "client-cert.pem"},
		{"connection", "ssl_key", "client-key.pem"}, {"connection", "ssl_cipher", "server"},
		{"connection", "oceanbase_port", "2881"},
		{"tpcc", "count_ware", "1"}, {"tpcc", "num_vu", "1"}, {"tpcc", "user", "root"}, {"tpcc", "pass", "mysql"},
		{"tpcc", "dbase", "tpcc"}, {"tpcc", "storage_engine", "innodb"}, {"tpcc", "partition", "false"},
		{"tpcc", "prepared", "false"}, {"tpcc", "history_pk", "false"}, {"tpcc", "no_stored_procs", "false"},
		{"tpcc", "total_iterations", "10000000"}, {"tpcc", "raiseerror", "false"}, {"tpcc", "keyandthink", "false"},
		{"tpcc", "driver", "timed"}, {"tpcc", "rampup", "2"}, {"tpcc", "duration", "5"},
		{"tpcc", "allwarehouse", "false"}, {"tpcc", "timeprofile", "false"}, {"tpcc", "async_scale", "false"},
		{"tpcc", "async_client", "10"}, {"tpcc", "async_verbose", "false"}, {"tpcc", "async_delay", "1000"},
		{"tpcc", "connect_pool", "false"},
		{"tpch", "scale_fact", "1"}, {"tpch", "tpch_user", "root"}, {"tpch", "ob_tenant_name", "tpch"},
		{"tpch", "tpch_pass", "mysql"}, {"tpch", "tpch_dbase", "tpch"}, {"tpch", "num_tpch_threads", "1"},
		{"tpch", "tpch_obcompat", "false"}, {"tpch", "ob_partition_num", "1"}, {"tpch", "tpch_storage_engine", "innodb"},
		{"tpch", "total_querysets", "1"}, {"tpch", "raise_query_error", "false"}, {"tpch", "verbose", "false"},
		{"tpch", "refresh_on", "false"}, {"tpch", "update_sets", "1"}, {"tpch", "trickle_refresh", "1000"},
		{"tpch", "refresh_verbose", "false"}, {"tpch", "cloud_query", "false"},
	}},
}

const (
	sslFiles          = "used by HammerDB only with {p}ssl true, whose mapping does not use it (see {p}ssl)"
	superuser         = "buildschema connects to the default database as the superuser to create the role and database when missing"
	oceanBase         = "OceanBase is not supported: Sledge drives MySQL and MariaDB servers"
	defaultTablespace = "the tables are created in the database's default tablespace"
	engineMaps        = "engine: the tables' storage engine"
	userMaps          = "the user of the target URL"
	passMaps          = "the password of the target URL"
	dbaseMaps         = "the database of the target URL (buildschema creates it when missing)"
	refreshRuns       = "the refresh functions run as the specification orders them: one pair around the power test and, with several VUs, one pair per query stream"
)

// dbTreatments says what Sledge does with each key, by its name without
// the database's prefix (one meaning for pg_, maria_ and mysql_).
var dbTreatments = map[string]treatment{
	// connection
	"host":    {Maps, Always, "the host of the target URL"},
	"port":    {Maps, Always, "the port of the target URL"},
	"sslmode": {Maps, Always, "the connection's sslmode (disable, allow, prefer, require, verify-ca, verify-full)"},
	"socket": {Maps, Always, "the Unix socket, used as HammerDB uses it: when the host is 127.0.0.1 or localhost and the socket is not null; " +
		"when no such socket exists here, TCP to {p}host:{p}port, with a notice"},
	"ssl": {Maps, Always, "true: TLS (tls=true), with a notice: the server's certificate is checked against the system's CA certificates; " +
		"HammerDB's CA path, CA file, client certificate, key and cipher are not used"},
	"ssl_two_way":        {NoEffect, Always, sslFiles},
	"ssl_linux_capath":   {NoEffect, Always, sslFiles},
	"ssl_windows_capath": {NoEffect, Always, sslFiles},
	"ssl_ca":             {NoEffect, Always, sslFiles},
	"ssl_cert":           {NoEffect, Always, sslFiles},
	"ssl_key":            {NoEffect, Always, sslFiles},
	"ssl_cipher":         {NoEffect, Always, sslFiles},
	"oceanbase_port":     {Notice, Always, oceanBase},

	// tpcc
	"count_ware":    {Maps, Build, "warehouses (a run uses the warehouses the schema has, as HammerDB's driver does)"},
	"num_vu":        {Maps, Build, "workers: the build's parallel loaders"},
	"superuser":     {Maps, Build, superuser + " ({p}defaultdbase, {p}superuser, {p}superuserpass)"},
	"superuserpass": {Maps, Build, superuser + " ({p}defaultdbase, {p}superuser, {p}superuserpass)"},
	"defaultdbase":  {Maps, Build, superuser + " ({p}defaultdbase, {p}superuser, {p}superuserpass)"},
	"user":          {Maps, Always, userMaps + " (PostgreSQL: the role buildschema creates)"},
	"pass":          {Maps, Always, passMaps},
	"dbase":         {Maps, Always, dbaseMaps},
	"tspace":        {Notice, Build, defaultTablespace},
	"vacuum":        {Maps, Run, "true, driver timed: when the run has printed its result, CHECKPOINT as {p}superuser in {p}defaultdbase (as HammerDB takes it; as the benchmark's user, said in a line, when that login fails), then VACUUM (ANALYZE) of each TPROC-C table as the benchmark's user, between HammerDB's lines Checkpoint and Vacuum … Complete"},
	"dritasnap":     {Notice, Run, "DRITA snapshots (EDB Postgres Advanced Server) are not taken"},
	"oracompat":     {Notice, Always, "the EDB Oracle-compatible schema is neither built nor driven: Sledge's PostgreSQL schema and functions are used"},
	"cituscompat":   {Notice, Build, "the Citus-distributed schema is not built: plain PostgreSQL tables"},
	"storedprocs": {Maps, Always, "mode procs: the transactions run as server-side routines, as HammerDB's PostgreSQL driver does for " +
		"either value (Sledge's routines are functions, called with SELECT)"},
	"partition": {Notice, Build, "the tables are not partitioned"},
	"total_iterations": {Maps, Run, "driver test: iterations, an iteration-count run (each VU runs this many transactions, then stops); " +
		"driver timed: a notice when it is not the default (each VU runs until the duration ends)"},
	"raiseerror":   {Notice, Run, "a VU does not stop on an error: errors are counted by class and the VU carries on"},
	"keyandthink":  {Maps, Run, "true: pacing spec (the specification's keying and think times)"},
	"driver":       {Maps, Run, "timed: a timed run ({p}rampup, {p}duration); test: an iteration-count run ({p}total_iterations)"},
	"rampup":       {Maps, Run, "rampup, in minutes (decimals allowed); driver timed"},
	"duration":     {Maps, Run, "duration, in minutes (decimals allowed); driver timed"},
	"allwarehouse": {Maps, Run, "false: random_home (each VU keeps a random home warehouse, as in HammerDB); true: VUs spread evenly over the warehouses, with a notice (no warehouse per transaction)"},
	"timeprofile":  {Maps, Run, "true: per_vu_timing (each VU's latency histograms per transaction type kept with the job: jobs ID timing VUID); the run's are always kept (jobs ID timing)"},
	"async_scale": {Maps, Run, "true, with {p}keyandthink true and driver timed: terminals over a pool (load model terminals): " +
		"vu × {p}async_client paced terminals over vu sessions, a due terminal waiting for a free session as HammerDB's client waits for its VU; " +
		"HammerDB holds a session per client, the pool one per VU (a notice says so); with {p}keyandthink false nothing runs " +
		"(HammerDB's asynchronous scaling is not valid without keying and thinking time); with driver test, a notice (one session per VU)"},
	"async_client":    {Maps, Run, "with {p}async_scale true: the terminals per VU (terminals = vu × async_client)"},
	"async_verbose":   {Notice, Run, "the asynchronous clients' keying, thinking and transactions are not printed one by one: jobs ID timing has their latencies"},
	"async_delay":     {Notice, Run, "the terminals start together, without a delay between logins: the ramp-up ({p}rampup) is the time to settle before measuring"},
	"connect_pool":    {Notice, Run, "HammerDB's cluster connect pool (each VU holding connections to several instances, from connectpool/*.xml) is not implemented: each VU's session is to the target"},
	"storage_engine":  {Maps, Build, engineMaps},
	"prepared":        {NoEffect, Run, "statements are always prepared on the server, as with true"},
	"no_stored_procs": {Maps, Run, "true: mode sql (the transactions' statements sent by the client); false: mode procs (stored procedures)"},
	"history_pk":      {Notice, Build, "the history table is built without a primary key"},
	"purge":           {Maps, Run, "true, driver timed: when the run has printed its result, a wait until InnoDB's history list is empty or has not shrunk for 10 s, with HammerDB's lines (Starting purge … Purge complete in …); HammerDB's raised innodb_purge_threads and innodb_purge_batch_size for the wait are not set"},

	// tpch
	"scale_fact":          {Maps, Build, "scale: the scale factor"},
	"tpch_superuser":      {Maps, Build, superuser + " ({p}tpch_defaultdbase, {p}tpch_superuser, {p}tpch_superuserpass)"},
	"tpch_superuserpass":  {Maps, Build, superuser + " ({p}tpch_defaultdbase, {p}tpch_superuser, {p}tpch_superuserpass)"},
	"tpch_defaultdbase":   {Maps, Build, superuser + " ({p}tpch_defaultdbase, {p}tpch_superuser, {p}tpch_superuserpass)"},
	"tpch_user":           {Maps, Always, userMaps + " (PostgreSQL: the role buildschema creates)"},
	"tpch_pass":           {Maps, Always, passMaps},
	"tpch_dbase":          {Maps, Always, dbaseMaps},
	"tpch_tspace":         {Notice, Build, defaultTablespace},
	"tpch_gpcompat":       {Notice, Build, "the Greenplum schema is not built: plain PostgreSQL tables"},
	"tpch_gpcompress":     {Notice, Build, "Greenplum column compression is not used"},
	"num_tpch_threads":    {Maps, Build, "workers: the build's parallel loaders"},
	"total_querysets":     {Maps, Run, "query_sets"},
	"raise_query_error":   {Notice, Run, "a failed query does not stop its stream: it is recorded as failed and the stream carries on"},
	"verbose":             {Notice, Run, "query text and rows are not printed: each query's time and row count are"},
	"refresh_on":          {Maps, Run, "refresh: the refresh functions run with the queries"},
	"degree_of_parallel":  {Notice, Run, "max_parallel_workers_per_gather is not set: the server's setting applies"},
	"update_sets":         {Notice, Run, refreshRuns},
	"trickle_refresh":     {Notice, Run, "the refresh functions run without delays between their statements"},
	"refresh_verbose":     {Notice, Run, "each refresh function's time and row count are printed, not its steps"},
	"cloud_query":         {Notice, Run, "the cloud analytic queries are not implemented: the 22 TPROC-H queries run"},
	"rs_compat":           {Notice, Always, "Redshift compatibility is not implemented: PostgreSQL's SQL is used"},
	"tpch_storage_engine": {Notice, Build, "TPROC-H tables are created with the server's default storage engine"},
	"ob_tenant_name":      {Notice, Always, oceanBase},
	"tpch_obcompat":       {Notice, Always, oceanBase},
	"ob_partition_num":    {Notice, Always, oceanBase},
}

// genericKeys are the keys of HammerDB 6's config/generic.xml, in its
// order, grouped by what Sledge does with them. (gen_directory has no
// default there, so HammerDB's loader has no such key.)
var genericKeys = []struct {
	dict      string
	keys      []keyDefault
	treatment Treatment
	sledge    string
}{
	{"theme", []keyDefault{{"", "scaletheme", "dark"}, {"", "pixelsperpoint", "auto"}}, NoEffect,
		"HammerDB's GUI: Sledge's web UI has its own look"},
	{"sqlitedb", []keyDefault{{"", "sqlitedb_dir", "TMP"}}, Notice,
		"HammerDB's SQLite files are not used: jobs are kept in Sledge's repository (--repo, $SLEDGE_REPO)"},
	{"code_highlight", []keyDefault{{"", "highlight", "true"}, {"", "quote_passwords", "true"}}, NoEffect,
		"HammerDB's script editor: Sledge has no driver scripts to show"},
	// HammerDB's default bm is its older name for TPROC-C (a TPC trademark, which Sledge does not print).
	{"benchmark", []keyDefault{{"", "rdbms", "Oracle"}, {"", "bm", "TPROC-C"}}, Notice,
		"giset does not change the session's database or benchmark: use dbset db and dbset bm"},
	{"benchmark", []keyDefault{{"", "first_result", "NOPM"}}, Notice,
		"the TEST RESULT line always gives NOPM first, then TPM"},
	{"virtual_user_options", []keyDefault{{"", "virtual_users", "1"}, {"", "user_delay", "500"}, {"", "repeat_delay", "500"},
		{"", "iterations", "1"}, {"", "show_output", "1"}, {"", "log_to_temp", "0"}, {"", "unique_log_name", "0"},
		{"", "no_log_buffer", "0"}, {"", "log_timestamps", "0"}}, Notice,
		"giset does not change the session's virtual users: use vuset"},
	{"autopilot", []keyDefault{{"", "apmode", "disabled"}, {"", "autopilot_duration", "10"},
		{"", "autopilot_sequence", "1 2 4 8 12 16 20 24"}}, Notice,
		"autopilot is not implemented: loop over vuset vu in the script (foreach z {1 2 4 8} {…})"},
	{"mode", []keyDefault{{"", "hostname", "localhost"}, {"", "id", "0"}}, Notice,
		"HammerDB's primary/replica mode is not implemented: one sledge process runs each job"},
	{"transaction_counter", []keyDefault{{"", "tc_refresh_rate", "10"}}, Notice,
		"the transaction counter is sampled at the run's interval (10 s; shorter for runs under 10 s; jobs ID tcount)"},
	{"transaction_counter", []keyDefault{{"", "tc_log_to_temp", "0"}, {"", "tc_unique_log_name", "0"},
		{"", "tc_log_timestamps", "0"}}, Notice,
		"no transaction counter log is written: jobs ID tcount has the counts"},
	{"transaction_counter", []keyDefault{{"", "tc_graph_ribbon", "false"}}, NoEffect, "HammerDB's GUI"},
	{"metrics", []keyDefault{{"", "agent_hostname", "localhost"}, {"", "agent_id", "10000"}}, Notice,
		"HammerDB's metrics agent is not used"},
	{"datageneration", []keyDefault{{"", "gen_count_ware", "1"}, {"", "gen_scale_fact", "1"}, {"", "gen_num_vu", "1"}}, Notice,
		"giset does not change datagenrun: use dgset"},
	{"commandline", []keyDefault{{"", "sqlite_db", "TMP"}}, Notice,
		"HammerDB's SQLite files are not used: jobs are kept in Sledge's repository (--repo, $SLEDGE_REPO)"},
	{"commandline", []keyDefault{{"", "keepalive_margin", "60"}}, NoEffect,
		"vurun returns when the run has ended: nothing is kept alive"},
	{"commandline", []keyDefault{{"", "jobsoutput", "JSON"}}, Notice, "jobs answers follow jobs format JSON|text"},
	{"commandline", []keyDefault{{"", "jobs_disable", "0"}}, Notice, "jobs are always stored in Sledge's repository"},
	{"commandline", []keyDefault{{"", "jobs_profile_id", "0"}}, Maps,
		"the performance profile new runs are recorded under, as jobs profileid N (a jobs profileid the session set first wins)"},
	{"webservice", []keyDefault{{"", "ws_port", "8080"}}, Maps, "the port wsstart serves Sledge's web service on (sledge serve --listen 127.0.0.1:PORT)"},
	{"tpcoss", []keyDefault{{"", "submit_url", "https://tpc-council.github.io/hammerdb-results/submit.html"}}, NoEffect,
		"HammerDB's GUI: results are not submitted"},
	{"timeprofile", []keyDefault{{"", "profiler", "xtprof"}, {"", "xt_unique_log_name", "0"}, {"", "xt_gather_timeout", "60"},
		{"", "xt_job_storage", "1"}, {"", "xt_reservoir", "10000"}}, NoEffect,
		"latency is always recorded per transaction type, in histograms stored with the job (jobs ID timing); each VU's too with diset tpcc <db>_timeprofile true (jobs ID timing VUID)"},
}

// KeysMarkdown is the README's compatibility table of HammerDB's keys,
// generated from the table (TestREADMEKeyTable keeps the README in step):
// one row per key name without its database prefix, with each database's
// default, then the generic keys grouped as the table groups them.
func KeysMarkdown() string {
	var b strings.Builder
	dbs := Databases()
	b.WriteString("Keys are shown without their database's prefix (`pg_`, `maria_`, `mysql_`), with HammerDB 6's " +
		"default for each database (— where it has no such key). *maps*: the key sets that part of the job; " +
		"*notice*: accepted, and set to anything but the default it is named, with the reason, in a one-line " +
		"notice by the actions it concerns; *no notice*: accepted, nothing to say. An unknown dictionary or key " +
		"is refused by `diset`/`giset` with HammerDB's message, and the script carries on.\n\n")
	b.WriteString("| dict | key | " + strings.Join(products(dbs), " | ") + " | Sledge |\n")
	b.WriteString("|---|---|" + strings.Repeat("---|", len(dbs)) + "---|\n")
	for _, dict := range dictOrder {
		for _, name := range unprefixedKeys(dbs, dict) {
			var row []string
			var k Key
			for _, d := range dbs {
				dk, ok := d.Lookup(dict, d.Prefix+name)
				if !ok {
					row = append(row, "—")
					continue
				}
				row = append(row, mdCode(dk.Default))
				k = dk
			}
			// The texts name sibling keys with the prefix of the last
			// database that has the key; shown as *_ for all of them.
			text := k.Sledge
			for _, d := range dbs {
				text = strings.ReplaceAll(text, d.Prefix, "*_")
			}
			fmt.Fprintf(&b, "| %s | `%s` | %s | %s |\n", dict, name, strings.Join(row, " | "), mdCell(treatmentText(k.Treatment, k.When, text)))
		}
	}
	b.WriteString("\n| generic dict (`giset`) | keys (defaults) | Sledge |\n|---|---|---|\n")
	for _, g := range genericKeys {
		var keys []string
		for _, k := range g.keys {
			keys = append(keys, fmt.Sprintf("`%s` (%s)", k.name, mdCode(k.def)))
		}
		fmt.Fprintf(&b, "| %s | %s | %s |\n", g.dict, strings.Join(keys, ", "), mdCell(treatmentText(g.treatment, Always, g.sledge)))
	}
	return b.String()
}

func products(dbs []Database) []string {
	var out []string
	for _, d := range dbs {
		out = append(out, d.Product)
	}
	return out
}

// unprefixedKeys are the key names of a dictionary over all databases,
// without prefix, in the order they first appear.
func unprefixedKeys(dbs []Database, dict string) []string {
	var names []string
	for _, d := range dbs {
		for _, dc := range d.Dicts {
			if dc.Name != dict {
				continue
			}
			for _, k := range dc.Keys {
				if n := strings.TrimPrefix(k.Name, d.Prefix); !slices.Contains(names, n) {
					names = append(names, n)
				}
			}
		}
	}
	return names
}

func treatmentText(t Treatment, when, text string) string {
	switch t {
	case Maps:
		return "maps: " + text
	case Notice:
		return map[string]string{Always: "notice", Build: "notice at buildschema", Run: "notice at vurun"}[when] + ": " + text
	}
	return "no notice: " + text
}

func mdCode(s string) string {
	if s == "" {
		return "(empty)"
	}
	return "`" + s + "`"
}

// mdCell escapes what would end a table cell and shows the key names a
// text mentions (*_host) as code.
func mdCell(s string) string {
	return keyRef.ReplaceAllString(strings.ReplaceAll(s, "|", `\|`), "`$0`")
}

var keyRef = regexp.MustCompile(`\*_\w+`)
