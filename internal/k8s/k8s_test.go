package k8s

import (
	"bytes"
	"github.com/sledge-bench/sledge/internal/config"
	"reflect"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"sigs.k8s.io/yaml"
)

// decode splits a manifest on its "---" lines and decodes each document
// strictly (an unknown or misspelt field fails) into a Job or a Secret by
// its kind.
func decode(t *testing.T, y []byte) (*batchv1.Job, *corev1.Secret) {
	t.Helper()
	var job *batchv1.Job
	var secret *corev1.Secret
	for _, doc := range bytes.Split(y, []byte("\n---\n")) {
		var meta struct{ APIVersion, Kind string }
		if err := yaml.Unmarshal(doc, &meta); err != nil {
			t.Fatalf("%v\n%s", err, doc)
		}
		switch meta.Kind {
		case "Job":
			if meta.APIVersion != "batch/v1" || job != nil {
				t.Fatalf("Job: apiVersion %q, or a second Job", meta.APIVersion)
			}
			job = new(batchv1.Job)
			if err := yaml.UnmarshalStrict(doc, job); err != nil {
				t.Fatalf("Job: %v\n%s", err, doc)
			}
		case "Secret":
			if meta.APIVersion != "v1" || secret != nil {
				t.Fatalf("Secret: apiVersion %q, or a second Secret", meta.APIVersion)
			}
			secret = new(corev1.Secret)
			if err := yaml.UnmarshalStrict(doc, secret); err != nil {
				t.Fatalf("Secret: %v\n%s", err, doc)
			}
		default:
			t.Fatalf("document of kind %q:\n%s", meta.Kind, doc)
		}
	}
	return job, secret
}

func TestManifest(t *testing.T) {
	for _, c := range []struct {
		name       string
		o          Options
		jobName    string
		ns         string
		secretName string
		args       []string
		cpu, mem   string
		deadline   int64 // 0: none
		withSecret bool
	}{{
		name:       "defaults",
		o:          Options{Agents: 3, Image: "registry.example/sledge:1.0"},
		jobName:    "sledge",
		secretName: "sledge",
		args:       []string{"run", "--segment", "$(JOB_COMPLETION_INDEX)/3", "--run-id", "sledge"},
		cpu:        "2", mem: "1Gi",
	}, {
		name: "everything",
		o: Options{Agents: 16, Name: "tpcc-1", Namespace: "bench", Image: "sledge:dev", Secret: "pg-creds",
			RunID: "nightly-42", CPU: "500m", Memory: "512Mi", RunArgs: []string{"--vu", "64", "--rampup=2m", "--duration", "10m"},
			Window: 12 * time.Minute, SecretTemplate: true},
		jobName: "tpcc-1", ns: "bench", secretName: "pg-creds",
		args: []string{"run", "--segment", "$(JOB_COMPLETION_INDEX)/16", "--run-id", "nightly-42", "--vu", "64", "--rampup=2m", "--duration", "10m"},
		cpu:  "500m", mem: "512Mi",
		deadline:   int64((12*time.Minute + DeadlineSlack) / time.Second),
		withSecret: true,
	}, {
		name:       "one agent, dollars escaped",
		o:          Options{Agents: 1, Name: "x", Image: "i", RunID: "Run_2.a", RunArgs: []string{"--scrape", "http://h/$(X)"}},
		jobName:    "x",
		secretName: "sledge",
		args:       []string{"run", "--segment", "$(JOB_COMPLETION_INDEX)/1", "--run-id", "Run_2.a", "--scrape", "http://h/$$(X)"},
		cpu:        "2", mem: "1Gi",
	}} {
		t.Run(c.name, func(t *testing.T) {
			y, err := Manifest(c.o)
			if err != nil {
				t.Fatal(err)
			}
			for _, noise := range []string{"status:", "creationTimestamp"} {
				if bytes.Contains(y, []byte(noise)) {
					t.Errorf("manifest contains %q:\n%s", noise, y)
				}
			}
			job, secret := decode(t, y)
			if job == nil {
				t.Fatalf("no Job:\n%s", y)
			}
			n := int32(c.o.Agents)
			s := job.Spec
			if job.Name != c.jobName || job.Namespace != c.ns {
				t.Errorf("Job %s/%s, want %s/%s", job.Namespace, job.Name, c.ns, c.jobName)
			}
			if s.CompletionMode == nil || *s.CompletionMode != batchv1.IndexedCompletion {
				t.Errorf("completionMode %v, want Indexed", s.CompletionMode)
			}
			if s.Completions == nil || *s.Completions != n || s.Parallelism == nil || *s.Parallelism != n {
				t.Errorf("completions %v, parallelism %v, want %d", s.Completions, s.Parallelism, n)
			}
			if s.BackoffLimit == nil || *s.BackoffLimit != 0 {
				t.Errorf("backoffLimit %v, want 0", s.BackoffLimit)
			}
			if s.TTLSecondsAfterFinished == nil || *s.TTLSecondsAfterFinished != 86400 {
				t.Errorf("ttlSecondsAfterFinished %v, want 86400", s.TTLSecondsAfterFinished)
			}
			if c.deadline == 0 && s.ActiveDeadlineSeconds != nil || c.deadline != 0 && (s.ActiveDeadlineSeconds == nil || *s.ActiveDeadlineSeconds != c.deadline) {
				t.Errorf("activeDeadlineSeconds %v, want %d (0: none)", s.ActiveDeadlineSeconds, c.deadline)
			}
			if s.PodFailurePolicy != nil || s.Selector != nil {
				t.Errorf("podFailurePolicy %v, selector %v: want neither", s.PodFailurePolicy, s.Selector)
			}
			labels := map[string]string{"app.kubernetes.io/name": "sledge", "app.kubernetes.io/instance": c.jobName}
			if !reflect.DeepEqual(job.Labels, labels) || !reflect.DeepEqual(s.Template.Labels, labels) {
				t.Errorf("labels %v and %v, want %v", job.Labels, s.Template.Labels, labels)
			}
			pod := s.Template.Spec
			if pod.RestartPolicy != corev1.RestartPolicyNever {
				t.Errorf("restartPolicy %q", pod.RestartPolicy)
			}
			if len(pod.Containers) != 1 {
				t.Fatalf("%d containers", len(pod.Containers))
			}
			ct := pod.Containers[0]
			if ct.Image != c.o.Image || len(ct.Command) != 0 {
				t.Errorf("image %q, command %q", ct.Image, ct.Command)
			}
			if !reflect.DeepEqual(ct.Args, c.args) {
				t.Errorf("args\n %q, want\n %q", ct.Args, c.args)
			}
			env := map[string]corev1.EnvVar{}
			for _, e := range ct.Env {
				env[e.Name] = e
				if e.Value != "" {
					t.Errorf("env %s has a literal value %q", e.Name, e.Value)
				}
			}
			if len(env) != 3 {
				t.Errorf("env %v, want JOB_COMPLETION_INDEX, SLEDGE_DB, SLEDGE_REPO", ct.Env)
			}
			idx := env["JOB_COMPLETION_INDEX"].ValueFrom
			if idx == nil || idx.FieldRef == nil || idx.FieldRef.FieldPath != "metadata.annotations['batch.kubernetes.io/job-completion-index']" {
				t.Errorf("JOB_COMPLETION_INDEX from %+v", idx)
			}
			for name, key := range map[string]string{"SLEDGE_DB": "db", "SLEDGE_REPO": "repo"} {
				from := env[name].ValueFrom
				if from == nil || from.SecretKeyRef == nil || from.SecretKeyRef.Name != c.secretName || from.SecretKeyRef.Key != key ||
					from.SecretKeyRef.Optional != nil {
					t.Errorf("%s from %+v, want the key %s of the Secret %s", name, from, key, c.secretName)
				}
			}
			want := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(c.cpu), corev1.ResourceMemory: resource.MustParse(c.mem)}
			for what, got := range map[string]corev1.ResourceList{"requests": ct.Resources.Requests, "limits": ct.Resources.Limits} {
				if len(got) != 2 || got.Cpu().Cmp(want[corev1.ResourceCPU]) != 0 || got.Memory().Cmp(want[corev1.ResourceMemory]) != 0 {
					t.Errorf("%s %v, want cpu %s memory %s", what, got, c.cpu, c.mem)
				}
			}
			if c.withSecret != (secret != nil) {
				t.Fatalf("Secret template %v, want %v", secret != nil, c.withSecret)
			}
			if secret != nil {
				if secret.Name != c.secretName || secret.Namespace != c.ns || secret.Type != corev1.SecretTypeOpaque || len(secret.Data) != 0 {
					t.Errorf("Secret %s/%s type %q data %v", secret.Namespace, secret.Name, secret.Type, secret.Data)
				}
				if !reflect.DeepEqual(secret.StringData, map[string]string{"db": PlaceholderDB, "repo": PlaceholderRepo}) {
					t.Errorf("stringData %v", secret.StringData)
				}
				// The Secret comes first: kubectl apply creates it before the Job.
				if bytes.Index(y, []byte("kind: Secret")) > bytes.Index(y, []byte("kind: Job")) {
					t.Error("the Secret template is after the Job")
				}
			}
		})
	}
}

func TestManifestInvalid(t *testing.T) {
	ok := Options{Agents: 2, Image: "sledge:1"}
	for _, c := range []struct {
		name   string
		change func(*Options)
		field  string
		msg    string
	}{
		{"no agents", func(o *Options) { o.Agents = 0 }, "agents", "must be 1..1000 (got 0)"},
		{"too many agents", func(o *Options) { o.Agents = 1001 }, "agents", "must be 1..1000 (got 1001)"},
		{"name upper case", func(o *Options) { o.Name = "TPCC" }, "name", `"TPCC" is not a valid Kubernetes name`},
		{"name dot", func(o *Options) { o.Name = "a.b" }, "name", "not a valid Kubernetes name"},
		{"name too long", func(o *Options) { o.Name = strings.Repeat("a", 64) }, "name", "must be no more than 63 characters"},
		{"namespace", func(o *Options) { o.Namespace = "-x" }, "namespace", "not a valid Kubernetes namespace"},
		{"secret", func(o *Options) { o.Secret = "A" }, "secret", "not a valid Kubernetes Secret name"},
		{"no image", func(o *Options) { o.Image = "" }, "image", "is required"},
		{"image space", func(o *Options) { o.Image = "a b" }, "image", "white space"},
		{"run id", func(o *Options) { o.RunID = "a\nb" }, "run_id", `"a\nb": want 1 to 64 letters, digits`},
		{"run id too long", func(o *Options) { o.RunID = strings.Repeat("r", 65) }, "run_id", "want 1 to 64"},
		{"cpu", func(o *Options) { o.CPU = "two" }, "cpu", "not a Kubernetes quantity"},
		{"memory", func(o *Options) { o.Memory = "0" }, "memory", "must be positive"},
		{"segment", func(o *Options) { o.RunArgs = []string{"--vu", "8", "--segment", "0/2"} }, "run_args", "--segment may not be given: each agent's segment"},
		{"run id flag", func(o *Options) { o.RunArgs = []string{"--run-id=x"} }, "run_args", "--run-id may not be given"},
		{"db", func(o *Options) { o.RunArgs = []string{"--db", "postgres://u:p@h/d"} }, "run_args", "--db may not be given: the database comes from the Secret"},
		{"repo", func(o *Options) { o.RunArgs = []string{"--repo=postgres://u:p@h/d"} }, "run_args", "--repo may not be given: the jobs repository comes from the Secret"},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := ok
			c.change(&o)
			y, err := Manifest(o)
			if err == nil {
				t.Fatalf("no error:\n%s", y)
			}
			fields := config.Fields(err)
			if len(fields) != 1 || fields[0].Field != c.field || !strings.Contains(fields[0].Msg, c.msg) {
				t.Fatalf("got %#v, want one error of %s containing %q", fields, c.field, c.msg)
			}
			if strings.Contains(fields[0].Msg, "--"+c.field) {
				t.Errorf("the error names a flag: %s", fields[0].Msg)
			}
		})
	}
	// Every error at once.
	err := Options{Name: "X", CPU: "-1"}.Validate()
	if got := len(config.Fields(err)); got != 4 {
		t.Errorf("%d errors, want 4 (agents, name, image, cpu): %v", got, err)
	}
	// A flag whose value looks like a forbidden one is no flag; "--dbx" is another flag.
	if arg, _ := ForbiddenRunArg([]string{"--dbx", "1", "db", "-db"}); arg != "" {
		t.Errorf("ForbiddenRunArg found %q", arg)
	}
}
