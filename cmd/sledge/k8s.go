package main

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/sledge-bench/sledge/internal/config"
	"github.com/sledge-bench/sledge/internal/k8s"
	"github.com/sledge-bench/sledge/internal/workload"
)

func newK8sCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "k8s",
		Short: "Write Kubernetes manifests for a run spread over several client machines",
		Long: `Write what kubectl apply takes to run one job from several client processes
(agents) in a Kubernetes cluster. Nothing here talks to a cluster.`,
		Args: cobra.NoArgs,
	}
	cmd.AddCommand(newK8sManifestCmd())
	// --repo and --server mean nothing to a manifest: keep them out of its help.
	cmd.SetHelpFunc(func(c *cobra.Command, args []string) {
		for _, name := range []string{"repo", "server"} {
			if f := c.InheritedFlags().Lookup(name); f != nil {
				f.Hidden = true
			}
		}
		c.Root().HelpFunc()(c, args)
	})
	return cmd
}

// k8sFlagOf names the flag of a k8s.Options field.
var k8sFlagOf = map[string]string{
	"agents": "agents", "name": "name", "namespace": "namespace", "image": "image",
	"secret": "secret", "run_id": "run-id", "cpu": "cpu", "memory": "memory",
}

func newK8sManifestCmd() *cobra.Command {
	var o k8s.Options
	var db string
	cmd := &cobra.Command{
		Use:   "manifest --agents N --image IMAGE [flags] [-- run flags…]",
		Short: "Print an Indexed Job that runs one job from N agents (kubectl apply -f -)",
		Long: `Print, as YAML on stdout, a Kubernetes Indexed Job of --agents pods. Pod I
(0..N-1) runs

  sledge run --segment I/N --run-id RUN-ID [run flags…]

so that the N agents share out the run's load and all write one job into
the shared jobs repository. The run's flags go after --, as sledge run takes
them, for the whole run (--vu 64 over 4 agents: 16 each; each agent needs at
least one); --segment and --run-id are set here.

The database under test and the jobs repository are read from a Secret
(--secret, keys db and repo) as SLEDGE_DB and SLEDGE_REPO: they are never
written into the manifest nor on a command line. Create it first:

  kubectl create secret generic sledge \
    --from-literal=db=postgres://USER:PASSWORD@DBHOST:5432/tpcc \
    --from-literal=repo=postgres://USER:PASSWORD@REPOHOST:5432/sledge

or print a template of it with --with-secret-template and edit it.

The image must have the sledge binary as its entrypoint (the container is
given only arguments). Each pod requests and is limited to --cpu and
--memory. The Job has backoffLimit 0: a lost agent fails the Job rather
than re-running its segment in the middle of the measured window, and
Kubernetes stops the other agents. For a timed TPROC-C run the Job gets an
activeDeadlineSeconds of ramp-up + duration + 30m. Kubernetes deletes the
finished Job and its pods after a day.

The run id is the Job's name unless --run-id: every run needs a new --name
(or --run-id); re-applying the same manifest is the same run.`,
		Example: `  sledge k8s manifest --agents 3 --image registry.example/sledge:1.0 --name tpcc-1 \
      -- --vu 64 --rampup 2m --duration 10m | kubectl apply -f -
  kubectl logs -l app.kubernetes.io/instance=tpcc-1 --prefix -f --max-log-requests 10
  sledge k8s manifest --agents 3 --image registry.example/sledge:1.0 --with-secret-template > run.yaml`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 && cmd.ArgsLenAtDash() != 0 {
				return fmt.Errorf("unexpected argument %q: the flags of sledge run go after --, e.g. sledge k8s manifest --agents 3 --image IMAGE -- --vu 8", args[0])
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.Flags().Changed("db") {
				return errors.New("--db: put it in the Secret (key db, read by the agents as SLEDGE_DB), not in the manifest: kubectl create secret generic " + secretName(o) + " --from-literal=db=… --from-literal=repo=…")
			}
			if f := cmd.Flag("repo"); f != nil && f.Changed {
				return errors.New("--repo: put it in the Secret (key repo, read by the agents as SLEDGE_REPO), not in the manifest: kubectl create secret generic " + secretName(o) + " --from-literal=db=… --from-literal=repo=…")
			}
			if !cmd.Flags().Changed("agents") {
				return errors.New("--agents is required: how many agents (pods) share the run, 1.." + fmt.Sprint(k8s.MaxAgents))
			}
			if arg, why := k8s.ForbiddenRunArg(args); arg != "" {
				return fmt.Errorf("%s after --: not a flag to give here: %s", arg, why)
			}
			o.RunArgs = args
			if err := o.Validate(); err != nil {
				return k8sFlagErrors(err)
			}
			window, err := checkRunFlags(args, o)
			if err != nil {
				return err
			}
			o.Window = window
			y, err := k8s.Manifest(o)
			if err != nil {
				return k8sFlagErrors(err)
			}
			_, err = cmd.OutOrStdout().Write(y)
			return err
		},
	}
	fl := cmd.Flags()
	fl.IntVar(&o.Agents, "agents", 0, fmt.Sprintf("number of agents: pods of the Job, each running one segment of the run, 1..%d (required)", k8s.MaxAgents))
	fl.StringVar(&o.Name, "name", k8s.DefaultName, "name of the Job (a DNS-1123 label: lower-case letters, digits and -) and its app.kubernetes.io/instance label")
	fl.StringVar(&o.Namespace, "namespace", "", "namespace of the Job and the Secret template (default: kubectl's current namespace)")
	fl.StringVar(&o.Image, "image", "", "container image with the sledge binary as its entrypoint, e.g. registry.example/sledge:1.0 (required)")
	fl.StringVar(&o.Secret, "secret", k8s.DefaultSecret, "name of the Secret holding the keys db (the database, SLEDGE_DB) and repo (the shared jobs repository, SLEDGE_REPO)")
	fl.StringVar(&o.RunID, "run-id", "", "run id all agents write their segments under (default: --name)")
	fl.StringVar(&o.CPU, "cpu", k8s.DefaultCPU, "CPU request and limit of each agent, a Kubernetes quantity such as 2 or 500m")
	fl.StringVar(&o.Memory, "memory", k8s.DefaultMemory, "memory request and limit of each agent, a Kubernetes quantity such as 1Gi or 512Mi")
	fl.BoolVar(&o.SecretTemplate, "with-secret-template", false, "also print a Secret with placeholder values of db and repo, to edit before applying")
	fl.StringVar(&db, "db", "", "refused: the database goes into the Secret")
	_ = fl.MarkHidden("db")
	return cmd
}

func secretName(o k8s.Options) string {
	if o.Secret == "" {
		return k8s.DefaultSecret
	}
	return o.Secret
}

// k8sFlagErrors words k8s.Options field errors with the flags that set them.
func k8sFlagErrors(err error) error {
	fields := config.Fields(err)
	if fields == nil {
		return err
	}
	msgs := make([]string, len(fields))
	for i, f := range fields {
		if name, ok := k8sFlagOf[f.Field]; ok {
			msgs[i] = "--" + name + ": " + f.Msg
		} else if f.Field == "run_args" {
			msgs[i] = "after --: " + f.Msg
		} else {
			msgs[i] = f.Error()
		}
	}
	return errors.New(strings.Join(msgs, "\n"))
}

// checkRunFlags parses the run's flags as sledge run does, so that a typo
// or a run the agents would refuse is caught here rather than in N pods,
// and returns the run's ramp-up plus measured window when it is timed (an
// OLTP workload without --iterations), else 0.
func checkRunFlags(args []string, o k8s.Options) (time.Duration, error) {
	run, _, err := newRootCmd().Find([]string{"run"})
	if err != nil {
		return 0, err
	}
	run.InheritedFlags() // brings the root's --server into run.Flags()
	fs := run.Flags()
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return 0, errors.New("after --: the flags of sledge run (see sledge run --help), not --help")
		}
		return 0, fmt.Errorf("after --: the flags of sledge run: %w", err)
	}
	if fs.NArg() > 0 {
		return 0, fmt.Errorf("after --: sledge run takes flags only, not %q", fs.Arg(0))
	}
	// The settings that decide the window and each agent's share, checked by
	// the run's own rules (config.Spec.Validate) as agent 0 will check them.
	s := config.New(config.KindRun)
	var errs []error
	get := func(err error) { errs = append(errs, err) }
	var v int
	v, err = fs.GetInt("vu")
	s.VU = v
	get(err)
	v, err = fs.GetInt("iterations")
	s.Iterations = v
	get(err)
	s.Workload, err = fs.GetString("workload")
	get(err)
	var d time.Duration
	d, err = fs.GetDuration("rampup")
	s.Rampup = config.Duration(d)
	get(err)
	d, err = fs.GetDuration("duration")
	s.Duration = config.Duration(d)
	get(err)
	if errors.Join(errs...) != nil {
		return 0, nil // not the run flags this code knows: no deadline
	}
	s.Segment = fmt.Sprintf("0/%d", o.Agents) // the smallest share of the N
	s.RunID = "k8s"
	var refused config.FieldErrors
	for _, f := range config.Fields(s.Validate()) {
		switch f.Field {
		case "vu", "iterations", "rampup", "duration":
			refused = append(refused, f)
		case "segment":
			return 0, fmt.Errorf("--agents %d: the agents would refuse the run: %s", o.Agents, f.Msg)
		}
	}
	if refused != nil {
		return 0, fmt.Errorf("after --: %w", flagErrors(refused))
	}
	w, err := workload.Lookup(s.Workload)
	if err != nil {
		return 0, fmt.Errorf("after --: --workload: %w", err)
	}
	if _, ok := w.(workload.OLTP); !ok || s.Iterations > 0 {
		return 0, nil
	}
	return s.Rampup.D() + s.Duration.D(), nil
}
