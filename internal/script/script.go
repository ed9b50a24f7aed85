// Package script is Sledge's HammerDB command layer: what `sledge cli` (Tcl
// scripts and the sledge> prompt) and the Python package (python/sledge) run
// in Go.
//
// The front ends keep HammerDB's session state (dbset, diset, vuset …) and
// hand it, as a State, to Do for each action (buildschema, vurun …). Do maps
// HammerDB's parameter names for the chosen database onto a config.Spec and
// runs it through the job service (internal/app), so a HammerDB setting is
// checked by the same rules as a CLI flag or an API field; errors are worded
// as the HammerDB setting that caused them ("vuset vu: …"). The Python API's
// run() and build() hand a spec directly to Job. Both end with the line the
// front ends parse, "SLEDGE-JOB ID STATUS", when a job was created.
//
// Command answers HammerDB's jobs command from the jobs repository, with
// HammerDB's sub-commands and output shapes.
package script

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/sledge-bench/sledge/internal/app"
	"github.com/sledge-bench/sledge/internal/config"
	"github.com/sledge-bench/sledge/internal/workload"
)

// TclPrelude is HammerDB's command set in Tcl: `sledge cli` runs tclsh with
// it, then the script ("auto SCRIPT") or a prompt. Its actions call
// `sledge cli do ACTION` (Do) and `sledge cli jobs` (Command); it finds the
// binary in $SLEDGE_BIN.
//
//go:embed hammerdb.tcl
var TclPrelude string

// State is HammerDB's session state as the front ends keep it and send it,
// as JSON, to `sledge cli do ACTION`.
type State struct {
	DB    string                       `json:"db"` // pg | maria | mysql
	BM    string                       `json:"bm"` // TPROC-C | TPROC-H (older HammerDB names accepted)
	Dicts map[string]map[string]string `json:"dicts"`
	VU    map[string]string            `json:"vu"`
	DG    map[string]string            `json:"dg"`
	// ProfileID is the performance profile (jobs profileid N) that runs are
	// recorded under; 0 for none.
	ProfileID int `json:"profileid"`
	// Thresholds are the session's thresholds (Sledge's own threshold
	// command; HammerDB has none), judged on every run's result
	// (config.Spec.Thresholds).
	Thresholds []string `json:"thresholds,omitempty"`
}

// ReadState reads the State a front end hands to `sledge cli do` (JSON).
func ReadState(r io.Reader) (*State, error) {
	var st State
	if err := json.NewDecoder(r).Decode(&st); err != nil {
		return nil, fmt.Errorf("cli do: state on stdin: %w", err)
	}
	return &st, nil
}

// maxSpec bounds the spec `sledge cli job` reads (ReadSpec): a spec is a
// few hundred bytes.
const maxSpec = 1 << 20

// ReadSpec reads the spec the Python API hands to `sledge cli job` (Job's
// specJSON), at most maxSpec bytes of it.
func ReadSpec(r io.Reader) ([]byte, error) {
	spec, err := io.ReadAll(io.LimitReader(r, maxSpec))
	if err != nil {
		return nil, fmt.Errorf("cli job: spec on stdin: %w", err)
	}
	return spec, nil
}

// ExitError ends the process with Code after the command printed its own
// report (the errors, the SLEDGE-JOB line): main exits with ExitCode() and
// prints nothing more.
type ExitError struct{ Code int }

func (e ExitError) Error() string { return fmt.Sprintf("exit status %d", e.Code) }

// ExitCode is the process's exit status.
func (e ExitError) ExitCode() int { return e.Code }

// JobLine is the prefix of the last line of a job's action: "SLEDGE-JOB ID
// STATUS". The front ends take the job's id and final status from it.
const JobLine = "SLEDGE-JOB"

// Job runs the job specJSON describes (config.Spec's JSON, the HTTP API's
// request body) and streams its output to w: the contract of the hidden
// `sledge cli job` command the Python API's run() and build() use. Like Do
// it ends with "SLEDGE-JOB ID STATUS" when a job was created, and returns
// ExitError{1} unless the job completed and found nothing wrong. A spec that
// is invalid creates no job: each error is printed as "Error: FIELD: MESSAGE".
func Job(ctx context.Context, w io.Writer, svc *app.Service, specJSON []byte) error {
	spec, err := config.Decode(specJSON)
	if err != nil {
		return failed(w, err, nil)
	}
	o, err := svc.Run(ctx, app.Request{Spec: spec, Console: w})
	if o.ID == 0 {
		return failed(w, err, nil)
	}
	return finish(w, o, err, wording{advice: pythonAdvice})
}

// wording words a job's errors for one front end: name is the setting a
// spec field came from (nil: the field's own name), advice what the user can
// do about what the job found about its workload's schema (nil or "": no
// advice). The lower packages never advise: they name fields and return
// workload.SchemaError.
type wording struct {
	name   func(field string) string
	advice func(err error) string
}

// se is err's workload.SchemaError (a zero one when it has none).
func se(err error) workload.SchemaError {
	var s *workload.SchemaError
	if errors.As(err, &s) {
		return *s
	}
	return workload.SchemaError{}
}

// pythonAdvice is what the Python API's user can do about a job's schema
// finding: build(force=True) replaces a schema, build() makes one.
func pythonAdvice(err error) string {
	switch {
	case errors.Is(err, workload.ErrSchemaExists), errors.Is(err, workload.ErrSchemaUnusable):
		return "build(force=True) drops it and builds again"
	case errors.Is(err, workload.ErrNoSchema) && se(err).Holds != "":
		return "the database holds a " + workload.Title(se(err).Holds) + " schema: name it with workload=\"" + se(err).Holds + "\""
	case errors.Is(err, workload.ErrNoSchema):
		return "build() it first"
	}
	return ""
}

// failed prints why no job was created — one "Error: SETTING: MESSAGE" line
// per invalid field, SETTING being name(field) (the field itself when name
// is nil), else "Error: MESSAGE" — and returns ExitError{1}.
func failed(w io.Writer, err error, name func(field string) string) error {
	if err == nil {
		err = errors.New("no job was created")
	}
	var exit ExitError
	if errors.As(err, &exit) {
		return exit
	}
	printError(w, err, wording{name: name})
	return ExitError{Code: 1}
}

// errorText is err as one line, with the front end's advice where it has
// some (a job's failure, shown as its virtual user's error).
func errorText(err error, words wording) string {
	if words.advice != nil {
		if a := words.advice(err); a != "" {
			return fmt.Sprintf("%v: %s", err, a)
		}
	}
	return err.Error()
}

// printError prints err as "Error: SETTING: MESSAGE" lines, one per invalid
// field (see failed), else as "Error: MESSAGE", followed by the front end's
// advice where it has some ("Error: MESSAGE: ADVICE").
func printError(w io.Writer, err error, words wording) {
	if words.advice != nil {
		if a := words.advice(err); a != "" {
			fmt.Fprintf(w, "Error: %v: %s\n", err, a)
			return
		}
	}
	fields := config.Fields(err)
	if fields == nil {
		fmt.Fprintf(w, "Error: %v\n", err)
		return
	}
	for _, f := range fields {
		switch {
		case f.Field == "":
			fmt.Fprintf(w, "Error: %s\n", f.Msg)
		case words.name != nil:
			fmt.Fprintf(w, "Error: %s: %s\n", words.name(f.Field), f.Msg)
		default:
			fmt.Fprintf(w, "Error: %s: %s\n", f.Field, f.Msg)
		}
	}
}

// finish ends the action of a job that was created: its error, if it failed,
// worded for the front end, then the line the front ends parse, last. Exit
// status 1 unless the job completed and found nothing wrong (a check's
// failed condition, a failed TPROC-H query).
func finish(w io.Writer, o app.Outcome, err error, words wording) error {
	if err == nil && !o.OK() {
		err = o.Err // interrupted: why it stopped
	}
	if err != nil {
		printError(w, err, words)
	}
	fmt.Fprintf(w, "%s %d %s\n", JobLine, o.ID, o.Status)
	if err != nil || !o.OK() {
		return ExitError{Code: 1}
	}
	return nil
}
