package report

import (
	"fmt"
	"io"
	"os"
)

// What the profile commands write, as text or (asJSON) as JSON, as JobList
// does for the jobs.

// ProfileShow writes a profile as `sledge profile show` does: ProfileText,
// or ToProfile as JSON.
func ProfileShow(w io.Writer, p Profile, asJSON bool) error {
	if asJSON {
		return WriteJSON(w, ToProfile(p))
	}
	return ProfileText(w, p)
}

// ProfileList writes the profiles of a repository as `sledge profile list`
// does: ProfilesText, a line saying how to run one when there are none, or
// ToProfiles as JSON.
func ProfileList(w io.Writer, ps []Profile, asJSON bool) error {
	switch {
	case asJSON:
		return WriteJSON(w, ToProfiles(ps))
	case len(ps) == 0:
		_, err := fmt.Fprintln(w, "No profiles in the repository (run one with sledge profile --vu LIST).")
		return err
	}
	return ProfilesText(w, ps)
}

// ProfileCompare writes two profiles compared step by step as `sledge
// compare` does: ProfileCompareText, or ToProfileCompare as JSON.
func ProfileCompare(w io.Writer, a, b Profile, asJSON bool) error {
	if asJSON {
		return WriteJSON(w, ToProfileCompare(a, b))
	}
	return ProfileCompareText(w, a, b)
}

// WriteFile writes a report (write, e.g. ProfileHTML) to a file at path,
// created or truncated.
func WriteFile(path string, write func(io.Writer) error) error {
	return writeFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, write)
}

// AppendFile appends a report (write, e.g. GateMarkdown) to a file at path,
// created if need be: a CI job's step summary collects what each step adds.
func AppendFile(path string, write func(io.Writer) error) error {
	return writeFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, write)
}

// writeFile opens path as os.Create does (0666 before the umask) with flag.
func writeFile(path string, flag int, write func(io.Writer) error) error {
	f, err := os.OpenFile(path, flag, 0o666)
	if err != nil {
		return err
	}
	err = write(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
