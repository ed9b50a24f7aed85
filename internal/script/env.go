package script

import "path/filepath"

// Env is what HammerDB's command layer takes from the process environment:
// the command reads it once and hands it down as a value, so that nothing
// here reads the environment (and tests run side by side, each with its
// own).
type Env struct {
	// TMP, TMPDIR and TEMP are the variables HammerDB picks its temporary
	// directory from (vuset logtotemp's log, jobs ID save's report).
	TMP, TMPDIR, TEMP string
	// ConfigDir is a directory of HammerDB's configuration files
	// (steps.xml): $SLEDGE_HAMMERDB_CONFIG; "" for none.
	ConfigDir string
	// WorkDir is the directory HammerDB's relative config/ is found in:
	// the process's working directory.
	WorkDir string
}

// get is the value of one of the temporary-directory variables (tempDir).
func (e Env) get(name string) string {
	switch name {
	case "TMP":
		return e.TMP
	case "TMPDIR":
		return e.TMPDIR
	case "TEMP":
		return e.TEMP
	}
	return ""
}

// stepsCandidates are where steps.xml is looked for, in order: the
// configuration directory, then config/ in the working directory.
func (e Env) stepsCandidates() []string {
	var out []string
	if e.ConfigDir != "" {
		out = append(out, filepath.Join(e.ConfigDir, "steps.xml"))
	}
	return append(out, filepath.Join(e.WorkDir, "config", "steps.xml"))
}
