package main

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

func TestK8sManifest(t *testing.T) {
	t.Parallel()
	out, err := newEnv(t).run("k8s", "manifest", "--agents", "3", "--image", "registry.example/sledge:1.0", "--name", "tpcc-1",
		"--with-secret-template", "--cpu", "4", "--", "--vu", "64", "--rampup", "2m", "--duration", "10m")
	if err != nil {
		t.Fatal(err)
	}
	docs := strings.Split(out, "\n---\n")
	if len(docs) != 2 {
		t.Fatalf("%d documents, want the Secret template and the Job:\n%s", len(docs), out)
	}
	var secret corev1.Secret
	if err := yaml.UnmarshalStrict([]byte(docs[0]), &secret); err != nil || secret.Kind != "Secret" || secret.Name != "sledge" {
		t.Fatalf("Secret: %v %s/%s\n%s", err, secret.Kind, secret.Name, docs[0])
	}
	var job batchv1.Job
	if err := yaml.UnmarshalStrict([]byte(docs[1]), &job); err != nil || job.Kind != "Job" || job.APIVersion != "batch/v1" {
		t.Fatalf("Job: %v %s %s\n%s", err, job.APIVersion, job.Kind, docs[1])
	}
	s := job.Spec
	if job.Name != "tpcc-1" || *s.Completions != 3 || *s.Parallelism != 3 || *s.BackoffLimit != 0 || *s.CompletionMode != batchv1.IndexedCompletion {
		t.Errorf("Job %s: completions %d parallelism %d backoffLimit %d mode %s", job.Name, *s.Completions, *s.Parallelism, *s.BackoffLimit, *s.CompletionMode)
	}
	// 2m ramp-up + 10m window + 30m slack.
	if s.ActiveDeadlineSeconds == nil || *s.ActiveDeadlineSeconds != 42*60 {
		t.Errorf("activeDeadlineSeconds %v, want %d", s.ActiveDeadlineSeconds, 42*60)
	}
	ct := s.Template.Spec.Containers[0]
	want := []string{"run", "--segment", "$(JOB_COMPLETION_INDEX)/3", "--run-id", "tpcc-1", "--vu", "64", "--rampup", "2m", "--duration", "10m"}
	if !slices.Equal(ct.Args, want) {
		t.Errorf("args %q, want %q", ct.Args, want)
	}
	if cpu := ct.Resources.Limits.Cpu().String(); cpu != "4" {
		t.Errorf("cpu limit %s", cpu)
	}
	// What pod 2 runs, once Kubernetes expanded the index, is a sledge run
	// this sledge accepts.
	run, _, err := newRootCmd(newTestState(t)).Find([]string{"run"})
	if err != nil {
		t.Fatal(err)
	}
	pod2 := slices.Clone(ct.Args)
	for i, a := range pod2 {
		pod2[i] = strings.ReplaceAll(a, "$(JOB_COMPLETION_INDEX)", "2")
	}
	if pod2[0] != "run" {
		t.Fatalf("args %q do not start with run", pod2)
	}
	if err := run.Flags().Parse(pod2[1:]); err != nil {
		t.Fatalf("sledge %q: %v", pod2, err)
	}
	if seg, _ := run.Flags().GetString("segment"); seg != "2/3" {
		t.Errorf("pod 2 runs --segment %q", seg)
	}
	if id, _ := run.Flags().GetString("run-id"); id != "tpcc-1" {
		t.Errorf("pod 2 runs --run-id %q", id)
	}
}

// TestK8sManifestDeadline: the Job's deadline comes from a timed TPROC-C
// run's flags, with the run's defaults; a run whose length is unknown has
// none.
func TestK8sManifestDeadline(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, c := range []struct {
		run  []string
		want int64 // 0: none
	}{
		{nil, 30*60 + 10 + 60}, // the defaults: 10s ramp-up, 1m window
		{[]string{"--duration=1h"}, 30*60 + 10 + 3600},
		{[]string{"--vu", "4", "--iterations", "1000"}, 0},
		{[]string{"--workload", "tproch"}, 0},
	} {
		args := append([]string{"k8s", "manifest", "--agents", "2", "--image", "i", "--"}, c.run...)
		out, err := e.run(args...)
		if err != nil {
			t.Fatalf("%q: %v", c.run, err)
		}
		var job batchv1.Job
		if err := yaml.UnmarshalStrict([]byte(out), &job); err != nil {
			t.Fatalf("%q: %v\n%s", c.run, err, out)
		}
		got := int64(0)
		if job.Spec.ActiveDeadlineSeconds != nil {
			got = *job.Spec.ActiveDeadlineSeconds
		}
		if got != c.want {
			t.Errorf("%q: activeDeadlineSeconds %d, want %d (0: none)", c.run, got, c.want)
		}
	}
}

func TestK8sManifestRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ok := []string{"k8s", "manifest", "--agents", "2", "--image", "i"}
	for _, c := range []struct {
		args []string
		want string
	}{
		{append(ok, "--", "--vu", "8", "--segment", "0/2"), "--segment after --: not a flag to give here: each agent's segment is set by the Job"},
		{append(ok, "--", "--run-id=x"), "--run-id after --"},
		{append(ok, "--", "--db", "postgres://u:p@h/tpcc"), "--db after --: not a flag to give here: the database comes from the Secret"},
		{append(ok, "--", "--repo", "postgres://u:p@h/sledge"), "--repo after --"},
		{append(ok, "--db", "postgres://u:p@h/tpcc"), "--db: put it in the Secret"},
		{append(ok, "--repo", "postgres://u:p@h/sledge"), "--repo: put it in the Secret"},
		{append([]string{"--repo", "x"}, ok...), "--repo: put it in the Secret"},
		{[]string{"k8s", "manifest", "--image", "i"}, "--agents is required"},
		{[]string{"k8s", "manifest", "--agents", "0", "--image", "i"}, "--agents: must be 1..1000 (got 0)"},
		{[]string{"k8s", "manifest", "--agents", "1001", "--image", "i"}, "--agents: must be 1..1000"},
		{[]string{"k8s", "manifest", "--agents", "2"}, "--image: is required"},
		{append(ok, "--name", "Big_Name"), `--name: "Big_Name" is not a valid Kubernetes name`},
		{append(ok, "--memory", "lots"), `--memory: "lots" is not a Kubernetes quantity`},
		{append(ok, "--", "--vus", "8"), "after --: the flags of sledge run: unknown flag: --vus"},
		{append(ok, "--", "--duration", "soon"), "after --: the flags of sledge run"},
		{append(ok, "--", "extra"), `sledge run takes flags only, not "extra"`},
		{append(ok, "stray"), `unexpected argument "stray"`},
		{append(ok, "--run-id", "a b"), `--run-id: "a b": want 1 to 64 letters`},
		{append(ok, "--", "--vu", "0"), "after --: --vu must be at least 1 (got 0)"},
		{append(ok, "--", "--rampup", "-1s"), "after --: --rampup must not be negative"},
		{[]string{"k8s", "manifest", "--agents", "8", "--image", "i", "--", "--vu", "4"}, "--agents 8: the agents would refuse the run: segment 0/8 gets no virtual users: 4 VUs over 8 segments"},
	} {
		out, err := e.run(c.args...)
		if err == nil {
			t.Errorf("%q: no error, printed:\n%s", c.args, out)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %q, want %q", c.args, err, c.want)
		}
		if out != "" {
			t.Errorf("%q: printed a manifest although refused:\n%s", c.args, out)
		}
	}
}

func TestK8sManifestHelp(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	root := newRootCmd(newTestState(t))
	root.SetOut(&out)
	root.SetArgs([]string{"k8s", "manifest", "--help"})
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	help := out.String()
	for _, want := range []string{"--agents", "--name", "--namespace", "--image", "--secret", "--run-id", "--cpu", "--memory",
		"--with-secret-template", "kubectl create secret generic", "kubectl apply -f -", "Examples:"} {
		if !strings.Contains(help, want) {
			t.Errorf("help does not mention %s", want)
		}
	}
	for _, hidden := range []string{"--db", "--repo", "--server"} {
		if strings.Contains(help, "  "+hidden+" ") {
			t.Errorf("help shows %s", hidden)
		}
	}
}
