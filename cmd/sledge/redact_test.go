package main

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/sledge-bench/sledge/internal/jobs"
	"github.com/sledge-bench/sledge/internal/testdb/tpcctest"
)

// TestSecretsNeverLeave runs jobs whose database URL carries secrets where
// Sledge used to show them: ?sslpassword= (printed and stored as given)
// and a password with unescaped '@'s (pgx read the user info up to the
// first '@', dialled a host named after the rest of the password and its
// error, stored with the job, quoted it). One job runs on the test's
// PostgreSQL (which trusts the login, so the password is only carried),
// one fails to connect. The secret shows nowhere: not in the CLI's output
// or errors, jobs list or show (text and JSON, config and output
// included), the repository file, nor any API response.
func TestSecretsNeverLeave(t *testing.T) {
	if testing.Short() {
		t.Skip("runs on PostgreSQL")
	}
	t.Parallel()
	const secret = "S3cretXyzzy"
	e := newEnv(t)
	pg, err := url.Parse(tpcctest.Postgres(t, tpcctest.Options{}))
	if err != nil {
		t.Fatal(err)
	}
	// Written as a user would, unescaped.
	withSecrets := func(host string) string {
		return "postgres://" + pg.User.Username() + ":p@ss@" + secret + "@" + host + pg.Path +
			"?" + pg.RawQuery + "&sslpassword=" + secret
	}
	var printed strings.Builder
	run := func(args ...string) error {
		gs := e.state()
		out, err := runSledge(context.Background(), gs, args...)
		printed.WriteString(out + testStderr(gs))
		if err != nil {
			printed.WriteString(err.Error())
		}
		return err
	}
	if err := run("run", "--db", withSecrets(pg.Host), "--vu", "1", "--rampup", "0s", "--duration", "2s", "--interval", "1s"); err != nil {
		t.Errorf("run on PostgreSQL: %v", err) // what it shows is checked below
	}
	good := jobID(e.latest(jobs.KindRun))
	if err := run("run", "--db", withSecrets("127.0.0.1:1"), "--duration", "1s"); err == nil {
		t.Fatal("run on a closed port succeeded")
	}
	bad := jobID(e.latest(jobs.KindRun))
	if bad == good {
		t.Fatal("the failed run made no job")
	}
	for _, args := range [][]string{
		{"jobs"}, {"jobs", "--format", "json"},
		{"jobs", "show", good}, {"jobs", "show", good, "--format", "json"},
		{"jobs", "show", good, "config", "--format", "json"}, {"jobs", "show", good, "output"},
		{"jobs", "show", bad}, {"jobs", "show", bad, "--format", "json"},
		{"jobs", "show", bad, "config", "--format", "json"},
	} {
		if err := run(args...); err != nil {
			t.Errorf("sledge %s: %v", strings.Join(args, " "), err)
		}
	}
	shown := printed.String()
	if strings.Contains(shown, secret) {
		t.Errorf("the CLI shows the secret:\n%s", shown)
	}
	// What is shown is still the job's: target and error, redacted.
	for _, want := range []string{"sslpassword=xxxxx", ":xxxxx@127.0.0.1:1/", "connect"} {
		if !strings.Contains(shown, want) {
			t.Errorf("the CLI's output lacks %q:\n%s", want, shown)
		}
	}
	if data, err := os.ReadFile(e.repo()); err != nil {
		t.Fatal(err)
	} else if strings.Contains(string(data), secret) {
		t.Error("the repository file holds the secret")
	}

	ts := testServer(e, "tok")
	for _, path := range []string{
		"/api/jobs", "/api/jobs/" + good, "/api/jobs/" + good + "/config", "/api/jobs/" + good + "/output",
		"/api/jobs/" + good + "/result", "/api/jobs/" + good + "/observed", "/api/jobs/" + good + "/audit",
		"/api/jobs/" + bad, "/api/jobs/" + bad + "/config", "/api/jobs/" + bad + "/output",
		"/jobs?jobid=" + good + "&db", "/jobs?jobid=" + good + "&dict", "/jobs?jobid=" + bad + "&status",
	} {
		req, err := http.NewRequest(http.MethodGet, ts.URL+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer tok")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != http.StatusOK {
			t.Errorf("GET %s: %s %s", path, resp.Status, body)
		}
		if strings.Contains(string(body), secret) {
			t.Errorf("GET %s shows the secret: %s", path, body)
		}
	}
}
