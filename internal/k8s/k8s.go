// Package k8s writes the Kubernetes objects that start a multi-agent run:
// an Indexed Job whose N pods each run `sledge run --segment I/N --run-id ID`
// with the database and the jobs repository read from a Secret, and
// optionally a template of that Secret. It only writes YAML; it never talks
// to a cluster.
//
// Errors name the fields of Options (config.FieldError), never a front end's flags:
// each front end words them.
package k8s

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/yaml"

	"github.com/sledge-bench/sledge/internal/config"
)

// Limits and defaults of Options.
const (
	MaxAgents = 1000

	DefaultName   = "sledge"
	DefaultSecret = "sledge"
	DefaultCPU    = "2"
	DefaultMemory = "1Gi"

	// TTL is how long a finished Job (and its pods, so their logs) stays
	// in the cluster before Kubernetes deletes it.
	TTL = 24 * time.Hour

	// DeadlineSlack is added to a run's known length (ramp-up + measured
	// window) for the Job's activeDeadlineSeconds: scheduling, image pulls,
	// connecting, storing the results.
	DeadlineSlack = 30 * time.Minute
)

// The Secret's keys and the environment variables they become.
const (
	SecretKeyDB   = "db"
	SecretKeyRepo = "repo"
	EnvDB         = "SLEDGE_DB"
	EnvRepo       = "SLEDGE_REPO"
	EnvIndex      = "JOB_COMPLETION_INDEX"
)

// Placeholders written into the Secret template: the user replaces them.
const (
	PlaceholderDB   = "postgres://USER:PASSWORD@DBHOST:5432/tpcc"
	PlaceholderRepo = "postgres://USER:PASSWORD@REPOHOST:5432/sledge"
)

// Options describe one multi-agent run. The zero values of Name, Secret,
// CPU, Memory and RunID take the defaults above (RunID: Name).
type Options struct {
	Name      string // the Job's name and its app.kubernetes.io/instance label
	Namespace string // "" leaves it out: kubectl's current namespace
	Image     string // an image whose entrypoint is the sledge binary
	Secret    string // the Secret holding the keys db and repo
	RunID     string // the run id every agent writes under (default Name)
	Agents    int    // pods, one segment each: 1..MaxAgents
	CPU       string // CPU request and limit of each pod, a quantity ("2", "500m")
	Memory    string // memory request and limit of each pod ("1Gi")

	// RunArgs are the flags of `sledge run` after the segment and run id.
	// They may not set what the manifest or the Secret sets (ForbiddenRunArg).
	RunArgs []string

	// Window is the run's ramp-up plus measured window when known (a timed
	// run), else 0: the Job then has no activeDeadlineSeconds.
	Window time.Duration

	// SecretTemplate adds a Secret with placeholder values to edit.
	SecretTemplate bool
}

// forbidden are the run's settings that the manifest or the Secret decides,
// and why.
var forbidden = []struct{ flag, why string }{
	{"segment", "each agent's segment is set by the Job from its completion index"},
	{"run-id", "the run id is set by the manifest, the same for every agent"},
	{"db", "the database comes from the Secret (key " + SecretKeyDB + ", as " + EnvDB + "): put it there, so that no password is in the manifest or on a command line"},
	{"repo", "the jobs repository comes from the Secret (key " + SecretKeyRepo + ", as " + EnvRepo + "): put it there, so that no password is in the manifest or on a command line"},
}

// ForbiddenRunArg returns the first argument of args that sets a run
// setting the manifest or the Secret sets (--segment, --run-id, --db,
// --repo, as "--x" or "--x=…"), and why it may not be given; "" when
// there is none.
func ForbiddenRunArg(args []string) (arg, why string) {
	for _, a := range args {
		rest, ok := strings.CutPrefix(a, "--")
		if !ok {
			continue
		}
		name, _, _ := strings.Cut(rest, "=")
		for _, f := range forbidden {
			if name == f.flag {
				return "--" + f.flag, f.why
			}
		}
	}
	return "", ""
}

// withDefaults fills the zero values that have defaults.
func (o Options) withDefaults() Options {
	if o.Name == "" {
		o.Name = DefaultName
	}
	if o.Secret == "" {
		o.Secret = DefaultSecret
	}
	if o.CPU == "" {
		o.CPU = DefaultCPU
	}
	if o.Memory == "" {
		o.Memory = DefaultMemory
	}
	if o.RunID == "" {
		o.RunID = o.Name
	}
	return o
}

// Validate checks o (after its defaults) and returns config.FieldErrors, nil when
// it is valid.
func (o Options) Validate() error {
	o = o.withDefaults()
	var errs config.FieldErrors
	add := func(field, format string, args ...any) {
		errs = append(errs, config.FieldError{Field: field, Msg: fmt.Sprintf(format, args...)})
	}
	if o.Agents < 1 || o.Agents > MaxAgents {
		add("agents", "must be 1..%d (got %d)", MaxAgents, o.Agents)
	}
	if msgs := validation.IsDNS1123Label(o.Name); msgs != nil {
		add("name", "%q is not a valid Kubernetes name: %s", o.Name, strings.Join(msgs, "; "))
	}
	if o.Namespace != "" {
		if msgs := validation.IsDNS1123Label(o.Namespace); msgs != nil {
			add("namespace", "%q is not a valid Kubernetes namespace: %s", o.Namespace, strings.Join(msgs, "; "))
		}
	}
	if msgs := validation.IsDNS1123Subdomain(o.Secret); msgs != nil {
		add("secret", "%q is not a valid Kubernetes Secret name: %s", o.Secret, strings.Join(msgs, "; "))
	}
	switch {
	case o.Image == "":
		add("image", "is required: an image whose entrypoint is the sledge binary, e.g. registry.example/sledge:1.0")
	case strings.IndexFunc(o.Image, unicode.IsSpace) >= 0:
		add("image", "%q contains white space", o.Image)
	}
	// The run id by the rule of the run itself.
	run := config.New(config.KindRun)
	run.RunID = o.RunID
	for _, f := range config.Fields(run.Validate()) {
		if f.Field == "run_id" {
			add("run_id", "%s", strings.TrimPrefix(f.Msg, f.Field+" "))
		}
	}
	for _, q := range []struct{ field, v string }{{"cpu", o.CPU}, {"memory", o.Memory}} {
		v, err := resource.ParseQuantity(q.v)
		switch {
		case err != nil:
			add(q.field, "%q is not a Kubernetes quantity (e.g. 2, 500m, 1Gi, 512Mi)", q.v)
		case v.Sign() <= 0:
			add(q.field, "must be positive (got %s)", q.v)
		}
	}
	if arg, why := ForbiddenRunArg(o.RunArgs); arg != "" {
		add("run_args", "%s may not be given: %s", arg, why)
	}
	if o.Window < 0 {
		add("window", "must not be negative (got %s)", o.Window)
	}
	if errs != nil {
		return errs
	}
	return nil
}

// Labels are the labels of the Job and of its pods.
func Labels(name string) map[string]string {
	return map[string]string{
		"app.kubernetes.io/name":     "sledge",
		"app.kubernetes.io/instance": name,
	}
}

// Args are the container's arguments: `run --segment $(JOB_COMPLETION_INDEX)/N
// --run-id ID` and the run's own flags. Kubernetes expands $(VAR) in
// arguments, so every "$" of the run id and flags is doubled ("$$" is a
// literal "$").
func Args(runID string, agents int, runArgs []string) []string {
	args := []string{"run", "--segment", "$(" + EnvIndex + ")/" + strconv.Itoa(agents), "--run-id", escape(runID)}
	for _, a := range runArgs {
		args = append(args, escape(a))
	}
	return args
}

func escape(s string) string { return strings.ReplaceAll(s, "$", "$$") }

// Job is the Indexed Job of o, which must be valid.
func Job(o Options) *batchv1.Job {
	o = o.withDefaults()
	n := int32(o.Agents)
	res := corev1.ResourceList{
		corev1.ResourceCPU:    resource.MustParse(o.CPU),
		corev1.ResourceMemory: resource.MustParse(o.Memory),
	}
	fromSecret := func(name, key string) corev1.EnvVar {
		return corev1.EnvVar{Name: name, ValueFrom: &corev1.EnvVarSource{
			SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: o.Secret}, Key: key},
		}}
	}
	job := &batchv1.Job{
		TypeMeta:   metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: metav1.ObjectMeta{Name: o.Name, Namespace: o.Namespace, Labels: Labels(o.Name)},
		Spec: batchv1.JobSpec{
			CompletionMode:          ptr(batchv1.IndexedCompletion),
			Completions:             ptr(n),
			Parallelism:             ptr(n),
			BackoffLimit:            ptr(int32(0)),
			TTLSecondsAfterFinished: ptr(int32(TTL / time.Second)),
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: Labels(o.Name)},
				Spec: corev1.PodSpec{
					RestartPolicy: corev1.RestartPolicyNever,
					// Agents on different nodes where the cluster can: one
					// node's CPU or network is not the bottleneck of all.
					Affinity: &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
						PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{{
							Weight: 100,
							PodAffinityTerm: corev1.PodAffinityTerm{
								LabelSelector: &metav1.LabelSelector{MatchLabels: Labels(o.Name)},
								TopologyKey:   "kubernetes.io/hostname",
							},
						}},
					}},
					Containers: []corev1.Container{{
						Name:  "sledge",
						Image: o.Image,
						Args:  Args(o.RunID, o.Agents, o.RunArgs),
						Env: []corev1.EnvVar{
							// Kubernetes sets it in an Indexed Job's pods too;
							// declared here, $(JOB_COMPLETION_INDEX) in the
							// arguments expands whatever the cluster's version.
							{Name: EnvIndex, ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{
								FieldPath: "metadata.annotations['" + batchv1.JobCompletionIndexAnnotation + "']",
							}}},
							fromSecret(EnvDB, SecretKeyDB),
							fromSecret(EnvRepo, SecretKeyRepo),
						},
						Resources: corev1.ResourceRequirements{Requests: res, Limits: res},
					}},
				},
			},
		},
	}
	if o.Window > 0 {
		job.Spec.ActiveDeadlineSeconds = ptr(int64((o.Window + DeadlineSlack + time.Second - 1) / time.Second))
	}
	return job
}

// SecretTemplate is the Secret of o with placeholder values.
func SecretTemplate(o Options) *corev1.Secret {
	o = o.withDefaults()
	return &corev1.Secret{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
		ObjectMeta: metav1.ObjectMeta{Name: o.Secret, Namespace: o.Namespace, Labels: map[string]string{"app.kubernetes.io/name": "sledge"}},
		Type:       corev1.SecretTypeOpaque,
		StringData: map[string]string{SecretKeyDB: PlaceholderDB, SecretKeyRepo: PlaceholderRepo},
	}
}

// jobDoc is a Job without its status, so that the YAML has no "status: {}".
type jobDoc struct {
	metav1.TypeMeta `json:",inline"`
	Metadata        metav1.ObjectMeta `json:"metadata"`
	Spec            batchv1.JobSpec   `json:"spec"`
}

// Manifest validates o and writes its objects as YAML documents separated
// by "---", each after a comment saying what it is: the Secret template
// first when asked for (kubectl applies in order), then the Job.
func Manifest(o Options) ([]byte, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	o = o.withDefaults()
	var b bytes.Buffer
	if o.SecretTemplate {
		y, err := yaml.Marshal(SecretTemplate(o))
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(&b, `# The Secret the agents read: replace both placeholders before applying, or
# delete this document and create the Secret with kubectl create secret.
#   %-5s the database under test (%s)
#   %-5s the shared jobs repository every agent writes to (%s)
`, SecretKeyDB, EnvDB, SecretKeyRepo, EnvRepo)
		b.Write(y)
		b.WriteString("---\n")
	}
	job := Job(o)
	y, err := yaml.Marshal(jobDoc{TypeMeta: job.TypeMeta, Metadata: job.ObjectMeta, Spec: job.Spec})
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(&b, `# Sledge run %q: %d agents, one pod per segment (sledge run --segment I/%d),
# the database and the jobs repository from the Secret %q (keys %s, %s).
# backoffLimit 0: a lost agent fails the Job instead of re-running its segment
# mid-window (a restarted segment would measure a different window);
# Kubernetes then stops the other agents. A new run needs a new Job name or
# run id.
`, o.RunID, o.Agents, o.Agents, o.Secret, SecretKeyDB, SecretKeyRepo)
	if job.Spec.ActiveDeadlineSeconds != nil {
		fmt.Fprintf(&b, "# activeDeadlineSeconds: ramp-up + measured window (%s) + %s for scheduling,\n# image pulls, connecting and storing the results.\n",
			shortDuration(o.Window), shortDuration(DeadlineSlack))
	}
	b.Write(y)
	return b.Bytes(), nil
}

// shortDuration writes d without zero trailing units ("30m", not "30m0s").
func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

func ptr[T any](v T) *T { return &v }
