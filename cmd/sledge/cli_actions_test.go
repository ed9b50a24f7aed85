package main

import (
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/sledge-bench/sledge/internal/testdb"
)

// HammerDB users' expectations of `sledge cli` actions, against the private
// PostgreSQL and MariaDB servers: buildschema uses a database a DBA created
// and refuses, in HammerDB's terms, to build over a schema; the TEST RESULT
// line names the database the script chose; vuset logtotemp writes
// HammerDB's log file.

// runTclScript runs a Tcl script through `sledge cli auto` and returns its output.
func (e *testEnv) runTclScript(script string) (string, error) {
	t := e.t
	t.Helper()
	path := filepath.Join(t.TempDir(), "script.tcl")
	if err := os.WriteFile(path, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	return e.process("", "cli", "auto", path)
}

// buildTwice is a build script printing buildschema's answer (BUILD …),
// then a second buildschema whose failure the script catches, a line that
// shows the script carried on, and a third, uncaught, followed by the line
// HammerDB's published build scripts print after buildschema.
func buildTwice(setup string) string {
	return setup + "puts \"BUILD [buildschema]\"\nputs FIRST-DONE\n" +
		"if {[catch {buildschema} msg]} {puts \"CAUGHT $msg\"}\nputs SCRIPT-CONTINUES\n" +
		"buildschema\nputs \"SCHEMA BUILD COMPLETED\"\n"
}

// checkFirstBuild checks the first build's answer: HammerDB's "Schema
// Build jobid=ID".
func checkFirstBuild(t *testing.T, first string) {
	t.Helper()
	if !regexp.MustCompile(`(?m)^BUILD Schema Build jobid=\d+$`).MatchString(first) {
		t.Errorf("buildschema's answer:\n%s", first)
	}
}

// checkRefusal checks the second build's refusal: HammerDB's commands and
// settings, never a CLI flag, shown as HammerDB shows a virtual user's
// error, before the FINISHED lines. A failed build raises a Tcl error: the
// script that caught it carries on; the third build's stops the script
// (err, its exit status) before its "SCHEMA BUILD COMPLETED".
func checkRefusal(t *testing.T, out string, err error, prefix string) {
	t.Helper()
	_, second, ok := strings.Cut(out, "FIRST-DONE\n")
	want := "Error in Virtual User 1: build: database already holds a TPROC-C schema (1 warehouse): run deleteschema first to drop it, or diset tpcc " +
		prefix + "dbase a new or empty database\nVuser 1:FINISHED FAILED\nALL VIRTUAL USERS COMPLETE\n"
	caught := regexp.MustCompile(`(?m)^CAUGHT buildschema: Schema Build jobid=\d+ ended FAILED: the script stops here\nSCRIPT-CONTINUES\n`)
	_, third, _ := strings.Cut(second, "SCRIPT-CONTINUES\n")
	if !ok || !strings.Contains(second, want) || strings.Contains(second, "--force") || !caught.MatchString(second) {
		t.Errorf("second buildschema: want %q, then the caught error and the script carrying on:\n%s", want, out)
	}
	if !strings.Contains(third, want) || strings.Contains(out, "SCHEMA BUILD COMPLETED") || err == nil {
		t.Errorf("third buildschema: want %q and the script stopped before SCHEMA BUILD COMPLETED (exit status: %v):\n%s", want, err, out)
	}
}

// A database a DBA created, empty and without the benchmark's user, is used
// by buildschema as HammerDB uses it: the superuser creates the user and
// gives it the database; nothing is created twice.
func TestCLIBuildIntoDBACreatedDatabasePostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("builds")
	}
	needTclsh(t)
	t.Parallel()
	e := newEnv(t)
	adminURL := testdb.PostgresAdminURL(t)
	u, err := url.Parse(adminURL)
	if err != nil {
		t.Fatal(err)
	}
	reset := []string{"DROP DATABASE IF EXISTS dba_made WITH (FORCE)", "DROP ROLE IF EXISTS dba_bench"}
	serverExec(t, adminURL, append(reset, "CREATE DATABASE dba_made")...)
	t.Cleanup(func() { serverExec(t, adminURL, reset...) })
	setup := "dbset db pg\ndbset bm TPROC-C\n" +
		"diset connection pg_host " + u.Hostname() + "\ndiset connection pg_port " + u.Port() + "\n" +
		"diset tpcc pg_superuser " + u.User.Username() + "\ndiset tpcc pg_defaultdbase " + strings.TrimPrefix(u.Path, "/") + "\n" +
		"diset tpcc pg_user dba_bench\ndiset tpcc pg_pass {bench pw}\ndiset tpcc pg_dbase dba_made\ndiset tpcc pg_count_ware 1\n"
	out, err := e.runTclScript(buildTwice(setup))
	first, _, _ := strings.Cut(out, "FIRST-DONE\n")
	if !strings.Contains(first, "Vuser 1:using the existing database dba_made (created role dba_bench, made dba_bench its owner)\n") ||
		!strings.Contains(first, "Vuser 1:built 1 warehouse") || strings.Contains(first, "created database") || strings.Contains(first, "Error") {
		t.Fatalf("buildschema into the DBA's database:\n%s", out)
	}
	checkFirstBuild(t, first)
	checkRefusal(t, out, err, "pg_")
}

// MariaDB: an empty database a DBA created is used as it is (nothing is
// created); the CLI's own refusal names its flags.
func TestCLIBuildIntoDBACreatedDatabaseMariaDB(t *testing.T) {
	if testing.Short() {
		t.Skip("builds")
	}
	needTclsh(t)
	t.Parallel()
	e := newEnv(t)
	dbURL := testdb.MariaDB(t) // an empty database, made by the server's administrator
	setup := "dbset db maria\ndbset bm TPROC-C\n" + strings.Join(hammerConnection(t, dbURL, "maria_"), "\n") +
		"\ndiset tpcc maria_count_ware 1\n"
	out, err := e.runTclScript(buildTwice(setup))
	first, _, _ := strings.Cut(out, "FIRST-DONE\n")
	if !strings.Contains(first, "Vuser 1:built 1 warehouse") || strings.Contains(first, "created database") || strings.Contains(first, "Error") {
		t.Fatalf("buildschema into the DBA's database:\n%s", out)
	}
	checkFirstBuild(t, first)
	checkRefusal(t, out, err, "maria_")
	// The same refusal from `sledge build` says what its user can do.
	_, err = e.run("build", "--db", dbURL, "--warehouses", "1")
	if err == nil || !strings.Contains(err.Error(), "database already holds a TPROC-C schema (1 warehouse): use --force") ||
		!strings.Contains(err.Error(), "`sledge drop`") {
		t.Errorf("sledge build over the schema: %v", err)
	}
}
