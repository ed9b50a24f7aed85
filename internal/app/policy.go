package app

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/sledge-bench/sledge/internal/db"
)

// TargetPolicy is which databases the jobs of a service may use: chosen by
// whoever starts the service (`sledge serve --target, --targets,
// --allow-any-target`), applied to a spec's db before anything is parsed by
// a driver, created or dialled. A nil policy (the CLI, the scripts) allows
// anything: there the user running Sledge names the target.
//
// Without AllowAny a job may name:
//   - a target by its name in Named (the spec's db is the name; the job
//     uses its URL, recorded without its password);
//   - an embedded database (sqlite:PATH, duckdb:PATH, *.db, *.duckdb)
//     inside DataDir: a relative PATH is taken inside DataDir, the path is
//     cleaned, the symbolic links of its existing part are resolved, and it
//     must still lie inside DataDir (no "..", no link leading out), not be
//     one of Reserved, and not hold characters a driver would read as URI
//     syntax (% # ?);
//   - nothing at all: the workload's embedded default (inside the data
//     directory), or the server's own $SLEDGE_DB.
//
// Anything else is refused with a *PolicyError and no job, file, directory
// or connection. A spec's scrape URL is refused too, unless AllowAny
// (admitScrape).
type TargetPolicy struct {
	// Named maps a name to a target (a database URL or an embedded path,
	// as --db takes it). Names are what ValidTargetName accepts.
	Named map[string]string
	// DataDir is the directory embedded databases must lie in
	// (config.DataDir()); empty allows no embedded path but the default.
	DataDir string
	// Reserved are files and directories inside DataDir that are never a
	// target (the jobs repository, the sandboxes' data).
	Reserved []string
	// AllowAny allows every target (named ones are still resolved).
	AllowAny bool
}

// ServerPolicy is the target policy of a server (`sledge serve`): the
// named targets, embedded databases in its data directory dataDir
// (absolute), and its own files there reserved: its jobs repository at
// repoPath and the sandboxes' data (dataDir/sandbox).
func ServerPolicy(named map[string]string, dataDir, repoPath string, allowAny bool) *TargetPolicy {
	return &TargetPolicy{Named: named, DataDir: dataDir, AllowAny: allowAny,
		Reserved: []string{repoPath, filepath.Join(dataDir, "sandbox")}}
}

// PolicyError is a target the service's TargetPolicy does not allow. The
// HTTP API answers it with 403 naming the field "db".
type PolicyError struct {
	// DB is the spec's db as given (a URL without its password).
	DB string
	// Reason says why, in words that reveal nothing of the network.
	Reason string
	// Scrape, when set, is the spec's scrape URL (without its password):
	// the error is about that field, not db.
	Scrape string
	// Script, when set, is a script file the spec names (pgbench's
	// scripts): the error is about the field scripts.
	Script string
}

func (e *PolicyError) Error() string {
	if e.Script != "" {
		return fmt.Sprintf("scripts %q is not allowed by this server: %s", e.Script, e.Reason)
	}
	if e.Scrape != "" {
		return fmt.Sprintf("scrape %q is not allowed by this server: %s", e.Scrape, e.Reason)
	}
	return fmt.Sprintf("db %q is not a target this server allows: %s", e.DB, e.Reason)
}

// Field is the spec field the error is about.
func (e *PolicyError) Field() string {
	if e.Script != "" {
		return "scripts"
	}
	if e.Scrape != "" {
		return "scrape"
	}
	return "db"
}

// admitScrape decides a spec's scrape URL (not empty) under the policy. A
// scrape URL makes the service fetch it from wherever the service runs:
// named in a request body, any URL would let a client reach what the
// service's network reaches (server-side request forgery). So a policy
// that limits the targets allows no scrape URL at all; only one that
// allows any target (whose jobs may dial anything already) takes it.
func (p *TargetPolicy) admitScrape(raw string) error {
	if p.AllowAny {
		return nil
	}
	return &PolicyError{Scrape: db.Redact(raw), Reason: "a server that limits its targets fetches no exporter URL for a job (only one that allows any target does)"}
}

// admitScripts decides a run's scripts under the policy. A script that is
// not a built-in one is a file the service reads from wherever it runs:
// named in a request body, any path would let a client read what the
// service may read. So only a policy that allows any target (whose jobs
// may open any file already) takes script files.
func (p *TargetPolicy) admitScripts(scripts []string) error {
	if p.AllowAny {
		return nil
	}
	for _, sc := range scripts {
		if !strings.HasPrefix(sc, "builtin:") {
			return &PolicyError{Script: sc, Reason: "a server that limits its targets reads no script file for a job (only built-in scripts, builtin:NAME; a server that allows any target reads files)"}
		}
	}
	return nil
}

// NamedTarget is a named target as a server lists it: never its URL.
type NamedTarget struct {
	Name string `json:"name"`
	Kind string `json:"kind"`
}

// targetName is what a target's name may be: no ':' or '/', so a name
// never reads as a URL or a path.
var targetName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// ValidTargetName reports whether name may name a target.
func ValidTargetName(name string) bool { return targetName.MatchString(name) }

// ParseNamedTarget reads one NAME=URL (a --target flag, a line of a
// --targets file) and checks that the URL is a target Sledge can use. Its
// errors never show a password.
func ParseNamedTarget(s string) (name, target string, err error) {
	name, target, ok := strings.Cut(strings.TrimSpace(s), "=")
	name, target = strings.TrimSpace(name), strings.TrimSpace(target)
	if !ok || name == "" || target == "" {
		// (Not echoed: it may hold a password.)
		return "", "", errors.New("want NAME=URL, e.g. pg=postgres://user@host:5432/tpcc")
	}
	if !ValidTargetName(name) {
		// (Redacted: NAME= left out, a URL's parameter ends the name.)
		return "", "", fmt.Errorf("target name %q: use letters, digits, '.', '_' and '-' (at most 64, no ':' or '/')", db.Redact(name))
	}
	t, err := db.ParseTarget(target)
	if err != nil {
		return "", "", fmt.Errorf("target %s: %w", name, err)
	}
	if t.Kind == db.SQLite || t.Kind == db.DuckDB {
		// Absolute now: the server's working directory is no part of it.
		target = t.String()
	}
	return name, target, nil
}

// ReadTargets reads a targets file: one NAME=URL per line; blank lines and
// lines starting with # are ignored. Errors name the line.
func ReadTargets(r io.Reader, what string) (map[string]string, error) {
	named := map[string]string{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, target, err := ParseNamedTarget(line)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", what, n, err)
		}
		if _, dup := named[name]; dup {
			return nil, fmt.Errorf("%s:%d: target %s is named twice", what, n, name)
		}
		named[name] = target
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return named, nil
}

// Names lists the named targets, sorted by name, with their kinds.
func (p *TargetPolicy) Names() []NamedTarget {
	if p == nil {
		return nil
	}
	list := make([]NamedTarget, 0, len(p.Named))
	for name, dsn := range p.Named {
		kind := "unknown"
		if t, err := db.ParseTarget(dsn); err == nil {
			kind = string(t.Kind)
		}
		list = append(list, NamedTarget{Name: name, Kind: kind})
	}
	sort.Slice(list, func(i, j int) bool { return list[i].Name < list[j].Name })
	return list
}

// Targets is what the service's policy lets a job name: the named targets
// and whether any other target is allowed too (true without a policy).
func (s *Service) Targets() (named []NamedTarget, allowAny bool) {
	p := s.opts.Targets
	if p == nil {
		return []NamedTarget{}, true
	}
	return p.Names(), p.AllowAny
}

// admit decides a spec's db (not empty) under the policy: the target to
// parse and, for a named target, its name. It touches nothing but reads of
// the file system (which parts of an embedded path exist, where their
// links lead).
func (p *TargetPolicy) admit(spec string) (dsn, name string, err error) {
	if t, ok := p.Named[spec]; ok {
		return t, spec, nil
	}
	if p.AllowAny {
		return spec, "", nil
	}
	shown := db.Redact(spec)
	k, path, ok := db.EmbeddedPath(spec)
	if !ok {
		if _, err := db.ParseTarget(spec); err == nil {
			return "", "", &PolicyError{DB: shown, Reason: "only the targets named by the server (GET /api/targets) and embedded databases inside its data directory are allowed"}
		}
		return "", "", &PolicyError{DB: shown, Reason: "it is not the name of a target (GET /api/targets lists them) nor an embedded database (sqlite:PATH, duckdb:PATH) inside the server's data directory"}
	}
	resolved, err := p.inDataDir(path)
	if err != nil {
		return "", "", &PolicyError{DB: shown, Reason: err.Error()}
	}
	return string(k) + ":" + resolved, "", nil
}

// inDataDir is path (relative: to the data directory) cleaned and with the
// symbolic links of its existing part resolved, or why it is not a
// database file inside the data directory.
func (p *TargetPolicy) inDataDir(path string) (string, error) {
	if p.DataDir == "" {
		return "", errors.New("this server allows no embedded database but its default")
	}
	if path == "" {
		return "", errors.New("an embedded database needs a file path")
	}
	if strings.ContainsAny(path, "%#?") || strings.ContainsFunc(path, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return "", errors.New("the path holds characters a database driver reads as URI syntax (% # ?) or control characters")
	}
	dir, err := filepath.Abs(p.DataDir)
	if err != nil {
		return "", fmt.Errorf("the data directory: %w", err)
	}
	dir = filepath.Clean(dir)
	if !filepath.IsAbs(path) {
		path = filepath.Join(dir, path)
	}
	path = filepath.Clean(path)
	if !within(dir, path) || path == dir {
		return "", errors.New("embedded databases must lie inside the server's data directory (a relative path is taken inside it)")
	}
	root, err := resolveExisting(dir)
	if err != nil {
		return "", fmt.Errorf("the data directory: %w", err)
	}
	resolved, err := resolveExisting(path)
	if err != nil {
		return "", err
	}
	if !within(root, resolved) || resolved == root {
		return "", errors.New("the path leads out of the server's data directory through a symbolic link")
	}
	for _, r := range p.Reserved {
		rr, err := filepath.Abs(r)
		if err != nil {
			continue
		}
		if rres, err := resolveExisting(filepath.Clean(rr)); err == nil {
			rr = rres
		}
		if within(rr, resolved) || resolved == rr || strings.HasPrefix(resolved, rr+"-") {
			// (jobs.db-wal and jobs.db-shm belong to jobs.db.)
			return "", errors.New("the path is one of the server's own files (its jobs repository or a sandbox)")
		}
	}
	if fi, err := os.Stat(resolved); err == nil && !fi.Mode().IsRegular() {
		return "", errors.New("the path exists and is not a file")
	}
	return resolved, nil
}

// within reports whether path is dir or lies below it (both clean and
// absolute).
func within(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// resolveExisting resolves the symbolic links of the longest existing
// prefix of path (clean, absolute) and appends the rest unchanged. A link
// that leads nowhere is an error: the driver would create its target.
func resolveExisting(path string) (string, error) {
	rest := ""
	for cur := path; ; cur = filepath.Dir(cur) {
		_, err := os.Lstat(cur)
		if err == nil {
			r, err := filepath.EvalSymlinks(cur)
			if err != nil {
				return "", errors.New("the path goes through a symbolic link that leads nowhere")
			}
			return filepath.Join(r, rest), nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", errors.New("the path cannot be examined (a part of it is not a directory, or not readable)")
		}
		if cur == filepath.Dir(cur) {
			return path, nil
		}
		rest = filepath.Join(filepath.Base(cur), rest)
	}
}
