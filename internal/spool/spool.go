// Package spool keeps what a job measured while the jobs repository could
// not be written: an append-only file of records (output lines, intervals,
// the result, how the job ended) in the data directory (or a private spare
// directory when that cannot take it), one file per job and process, to be
// handed in when the repository can be written again.
//
// A file is JSON lines: a header naming the repository and the job, then one
// record per line, each written whole and synced to disk before Append
// returns, so that a crash loses at most the line being written; Read skips
// a torn line. A record's value travels gob-encoded (base64) in the line:
// the results hold floats that JSON cannot carry (NaN for a rate that could
// not be measured). While a process writes a file it holds a lock on it, so
// that another process never hands in (and removes) a file still growing.
package spool

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/gob"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Record kinds.
const (
	KindLines    = "lines"    // a batch of console lines
	KindInterval = "interval" // one monitor interval
	KindResult   = "result"   // the job's result (a run of one process, or a group run's merged one)
	KindPart     = "part"     // an agent's part of a group run: its own result
	KindFailed   = "failed"   // an agent's run failed: its error
	KindAnalytic = "analytic" // a TPROC-H run's result
	KindFinish   = "finish"   // how the job ended: status and error
	KindMissing  = "missing"  // intervals neither stored nor kept: seq and reason
	// KindThresholds is a run's thresholds with their verdicts.
	KindThresholds = "thresholds"
)

// ext is the spool files' extension.
const ext = ".spool"

// Header is a spool file's first line: whose records it keeps.
type Header struct {
	// Repo names the jobs repository: its file's absolute path, or its
	// PostgreSQL URL with the password redacted.
	Repo string `json:"repo"`
	Job  int64  `json:"job"`
	// RunID and Segment are an agent's of a group run ("" otherwise).
	RunID   string    `json:"run_id,omitempty"`
	Segment string    `json:"segment,omitempty"`
	Host    string    `json:"host"`
	PID     int       `json:"pid"`
	Created time.Time `json:"created"`
}

// Record is one kept write.
type Record struct {
	Kind string    `json:"kind"`
	Seq  int       `json:"seq,omitempty"` // an interval's
	At   time.Time `json:"at"`
	Data string    `json:"data"` // the value, gob then base64
}

// Decode reads the record's value into v (a pointer to the type it was
// appended with).
func (r Record) Decode(v any) error {
	b, err := base64.StdEncoding.DecodeString(r.Data)
	if err != nil {
		return fmt.Errorf("spooled %s: %w", r.Kind, err)
	}
	if err := gob.NewDecoder(bytes.NewReader(b)).Decode(v); err != nil {
		return fmt.Errorf("spooled %s: %w", r.Kind, err)
	}
	return nil
}

// FileName is the name of the spool file of h's job and process:
// job-7-pid-1234.spool, or job-7-segment-1-3-pid-1234.spool for segment 1/3
// of a group run.
func FileName(h Header) string {
	name := "job-" + strconv.FormatInt(h.Job, 10)
	if h.Segment != "" {
		name += "-segment-" + strings.NewReplacer("/", "-", ":", "_").Replace(h.Segment)
	}
	return name + "-pid-" + strconv.Itoa(h.PID) + ext
}

// File is a spool file open for appending, locked by this process.
type File struct {
	f    *os.File
	path string
	head Header
	size int64 // the bytes written whole: a failed write is cut back to it
}

// Create creates the spool file of h in dir (made if needed), writes its
// header and locks it for this process. The file gets its name only once
// it is locked and has its header, so that another process's hand-in
// (List, Claim) never takes it in between.
func Create(dir string, h Header) (*File, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create spool directory %s: %w", dir, err)
	}
	path := filepath.Join(dir, FileName(h))
	f, err := os.CreateTemp(dir, FileName(h)+".new-*")
	if err != nil {
		return nil, fmt.Errorf("create spool file: %w", err)
	}
	tmp := f.Name()
	defer os.Remove(tmp) // the name it had until it was linked as path
	if err := lock(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("lock spool file %s: %w", path, err)
	}
	s := &File{f: f, path: path, head: h}
	b, err := json.Marshal(h)
	if err == nil {
		err = s.writeLine(b)
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("write spool file %s: %w", path, err)
	}
	// A link, unlike a rename, fails on a file of that name: one left by
	// an earlier process of the same pid is not ours to replace.
	if err := os.Link(tmp, path); err != nil {
		f.Close()
		return nil, fmt.Errorf("create spool file: %w", err)
	}
	return s, nil
}

// Private makes dir (if it is not there) as a directory only this user
// can enter, and checks that it is one: not a link, owned by this user,
// closed to others. A spool directory in a shared place (the temporary
// directory) must be, or another user could plant files that a hand-in
// would take for this user's results, or remove them.
func Private(dir string) error {
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		return fmt.Errorf("create spool directory %s: %w", dir, err)
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("spool directory: %w", err)
	}
	switch {
	case !fi.IsDir():
		return fmt.Errorf("spool directory %s is not a directory (a link or a file)", dir)
	case fi.Mode().Perm()&0o077 != 0:
		return fmt.Errorf("spool directory %s is open to other users (mode %v): it must be 0700", dir, fi.Mode().Perm())
	case !ownedByMe(fi):
		return fmt.Errorf("spool directory %s belongs to another user", dir)
	}
	return nil
}

// Path is the file's path.
func (s *File) Path() string { return s.path }

// Append adds a record of kind with value v (seq: an interval's number) and
// syncs it to disk.
func (s *File) Append(kind string, seq int, v any) error {
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(v); err != nil {
		return fmt.Errorf("spool %s: %w", kind, err)
	}
	b, err := json.Marshal(Record{Kind: kind, Seq: seq, At: time.Now().UTC(),
		Data: base64.StdEncoding.EncodeToString(buf.Bytes())})
	if err != nil {
		return fmt.Errorf("spool %s: %w", kind, err)
	}
	if err := s.writeLine(b); err != nil {
		return fmt.Errorf("write spool file %s: %w", s.path, err)
	}
	return nil
}

// writeLine writes one line in one write and syncs it.
func (s *File) writeLine(b []byte) error { return s.write(append(b, '\n')) }

// write writes whole lines in one write and syncs them. A write cut short
// (a full disk) is cut back, so that the next line does not join its
// torn piece and go unread with it.
func (s *File) write(b []byte) error {
	n, err := s.f.Write(b)
	if err == nil {
		err = s.f.Sync()
	}
	if err != nil {
		if n > 0 {
			_ = s.f.Truncate(s.size)
		}
		return err
	}
	s.size += int64(n)
	return nil
}

// MoveTo re-creates the file in dir with every record it holds (a torn
// line left out) and removes it here: for a directory whose file system
// cannot take more (full, or become read-only). On an error the file stays
// as it was.
func (s *File) MoveTo(dir string) (*File, error) {
	c, err := Read(s.path)
	if err != nil {
		return nil, err
	}
	n, err := Create(dir, s.head)
	if err != nil {
		return nil, err
	}
	var all []byte
	for _, r := range c.Records {
		b, err := json.Marshal(r)
		if err != nil {
			n.Remove()
			return nil, fmt.Errorf("spool %s: %w", r.Kind, err)
		}
		all = append(append(all, b...), '\n')
	}
	if len(all) > 0 {
		if err := n.write(all); err != nil {
			n.Remove()
			return nil, fmt.Errorf("write spool file %s: %w", n.path, err)
		}
	}
	// Should the old file stay (its directory refusing even a removal), it
	// holds the same records: handing both in stores nothing twice.
	_ = s.Remove()
	return n, nil
}

// Close closes the file and lets go of its lock; the file stays.
func (s *File) Close() error { return s.f.Close() }

// Remove removes the file (everything in it was handed in) and closes it.
func (s *File) Remove() error {
	err := os.Remove(s.path)
	if cerr := s.f.Close(); err == nil {
		err = cerr
	}
	return err
}

// Contents is what a spool file holds.
type Contents struct {
	Header  Header
	Records []Record
	// Damaged counts the lines that could not be read: a line torn by a
	// crash while it was written (the last), or damaged since.
	Damaged int
}

// Read reads the spool file at path. A line that does not parse is counted
// in Damaged and skipped; a file without a header is an error.
func Read(path string) (Contents, error) {
	var c Contents
	f, err := os.Open(path)
	if err != nil {
		return c, fmt.Errorf("read spool file: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 256<<20)
	first := true
	for sc.Scan() {
		line := sc.Bytes()
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if first {
			first = false
			if err := json.Unmarshal(line, &c.Header); err != nil || c.Header.Job == 0 {
				return c, fmt.Errorf("spool file %s: no header", path)
			}
			continue
		}
		var r Record
		if err := json.Unmarshal(line, &r); err != nil || r.Kind == "" {
			c.Damaged++
			continue
		}
		c.Records = append(c.Records, r)
	}
	if err := sc.Err(); err != nil {
		return c, fmt.Errorf("read spool file %s: %w", path, err)
	}
	if first {
		return c, fmt.Errorf("spool file %s: no header", path)
	}
	return c, nil
}

// ErrBusy is returned by Claim for a file that a live process still writes.
var ErrBusy = errors.New("spool file in use by a running sledge")

// Claimed is a spool file another process left, locked by this one for its
// hand-in.
type Claimed struct {
	File
	Contents
}

// Claim locks the spool file at path (ErrBusy when its writer still holds
// it, or another hand-in took it meanwhile) and reads it.
//
// A writer on this host that has ended may still seem to hold its lock
// for a moment: a child process it forked keeps the lock until the child
// execs. Claim waits up to claimWait for such a lock, never for a live
// writer's.
func Claim(path string) (*Claimed, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND, 0)
	if err != nil {
		return nil, fmt.Errorf("open spool file: %w", err)
	}
	err = lock(f)
	if errors.Is(err, errLocked) && writerGone(path) {
		for waited, step := time.Duration(0), time.Millisecond; errors.Is(err, errLocked) && waited < claimWait; waited, step = waited+step, 2*step {
			time.Sleep(step)
			err = lock(f)
		}
	}
	if err == nil && !stillAt(f, path) {
		err = errLocked // handed in (removed) by another process while we waited
	}
	if err != nil {
		f.Close()
		if errors.Is(err, errLocked) {
			return nil, fmt.Errorf("%s: %w", path, ErrBusy)
		}
		return nil, fmt.Errorf("lock spool file %s: %w", path, err)
	}
	c, err := Read(path)
	if err != nil {
		f.Close()
		return nil, err
	}
	var size int64
	if fi, err := f.Stat(); err == nil {
		size = fi.Size()
	}
	return &Claimed{File: File{f: f, path: path, head: c.Header, size: size}, Contents: c}, nil
}

// claimWait bounds Claim's wait for an ended writer's lock: a fork's
// window before its exec is far shorter.
const claimWait = 100 * time.Millisecond

// stillAt reports whether f is still the file at path.
func stillAt(f *os.File, path string) bool {
	open, err := f.Stat()
	if err != nil {
		return false
	}
	named, err := os.Stat(path)
	return err == nil && os.SameFile(open, named)
}

// writerGone reports whether the spool file at path was written by a
// process of this host that has ended.
func writerGone(path string) bool {
	c, err := Read(path)
	if err != nil {
		return false
	}
	host, _ := os.Hostname()
	return c.Header.Host == host && c.Header.PID > 0 && processGone(c.Header.PID)
}

// List lists the spool files in dirs, oldest job first; none from a dir
// that does not exist.
func List(dirs ...string) ([]string, error) {
	var out []string
	for _, dir := range dirs {
		entries, err := os.ReadDir(dir)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("list spool files: %w", err)
		}
		for _, e := range entries {
			if !e.IsDir() && strings.HasSuffix(e.Name(), ext) {
				out = append(out, filepath.Join(dir, e.Name()))
			}
		}
	}
	slices.SortFunc(out, func(a, b string) int {
		return cmpJob(filepath.Base(a), filepath.Base(b))
	})
	return out, nil
}

// cmpJob orders file names by their job number, then by name.
func cmpJob(a, b string) int {
	num := func(s string) int64 {
		s = strings.TrimPrefix(s, "job-")
		if i := strings.IndexByte(s, '-'); i >= 0 {
			s = s[:i]
		}
		n, _ := strconv.ParseInt(s, 10, 64)
		return n
	}
	if na, nb := num(a), num(b); na != nb {
		if na < nb {
			return -1
		}
		return 1
	}
	return strings.Compare(a, b)
}
