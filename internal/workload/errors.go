package workload

import "errors"

// What a job found about its workload's schema in the target. The workload
// packages wrap these sentinels in a SchemaError that says what they found,
// in their own words ("database already holds a TPROC-C schema (2
// warehouses)"), and never what to do about it: each front end adds that in
// its own terms (the CLI's flags and commands, HammerDB's commands and
// settings, the API's fields).
var (
	// ErrSchemaExists: a build found the workload's schema (or what is left
	// of an unfinished build) and was not told to replace it
	// (config.Spec.Force).
	ErrSchemaExists = errors.New("the database already holds the workload's schema")
	// ErrNoSchema: a job that needs the workload's schema found none.
	ErrNoSchema = errors.New("the database holds no schema of the workload")
	// ErrSchemaUnusable: a schema is there but cannot be used (its build did
	// not finish, or it is another workload's); only a build that replaces
	// it (Force) makes the database usable again.
	ErrSchemaUnusable = errors.New("the database's schema cannot be used")
)

// SchemaError is one of ErrSchemaExists, ErrNoSchema or ErrSchemaUnusable
// (errors.Is finds it) with the workload's account of what it found.
type SchemaError struct {
	Err      error  // the sentinel
	Workload string // the workload's registered name ("tprocc")
	Msg      string // what was found, without advice
	// Holds is, for ErrNoSchema, the registered name of another workload
	// whose schema the database holds, when the job looked (a check does):
	// the front end can say how to name it. "" otherwise.
	Holds string
}

func (e *SchemaError) Error() string { return e.Msg }

func (e *SchemaError) Unwrap() error { return e.Err }

// schemaKinds name the sentinels where a SchemaError must outlive its
// process: in a job's record, and in the API's job object.
var schemaKinds = map[string]error{
	"schema_exists":   ErrSchemaExists,
	"no_schema":       ErrNoSchema,
	"schema_unusable": ErrSchemaUnusable,
}

// Kind names e's sentinel ("schema_exists", "no_schema" or
// "schema_unusable"), "" for another error.
func (e *SchemaError) Kind() string {
	for k, s := range schemaKinds {
		if e.Err == s {
			return k
		}
	}
	return ""
}

// SchemaErrorOf is the SchemaError a job recorded by its Kind, workload
// and Holds (a job's record keeps no more of it), with msg as its account;
// nil for a kind this Sledge does not know, which reads as an error of no
// kind.
func SchemaErrorOf(kind, workload, holds, msg string) *SchemaError {
	s, ok := schemaKinds[kind]
	if !ok {
		return nil
	}
	return &SchemaError{Err: s, Workload: workload, Msg: msg, Holds: holds}
}
