package main

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/sledge-bench/sledge/internal/config"
	"github.com/sledge-bench/sledge/internal/k8s"
)

func newK8sCmd(gs *globalState) *cobra.Command {
	cmd := withHelp("k8s", &cobra.Command{
		Use:   "k8s",
		Short: "Write Kubernetes manifests for a run spread over several client machines",
		Args:  cobra.NoArgs,
	})
	cmd.AddCommand(newK8sManifestCmd(gs))
	hideGlobalFlags(cmd) // --repo and --server mean nothing to a manifest
	return cmd
}

func newK8sManifestCmd(gs *globalState) *cobra.Command {
	var o k8s.Options
	var db string
	cmd := withHelp("k8s-manifest", &cobra.Command{
		Use:   "manifest --agents N --image IMAGE [flags] [-- run flags…]",
		Short: "Print an Indexed Job that runs one job from N agents (kubectl apply -f -)",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 && cmd.ArgsLenAtDash() != 0 {
				return fmt.Errorf("unexpected argument %q: the flags of sledge run go after --, e.g. sledge k8s manifest --agents 3 --image IMAGE -- --vu 8", args[0])
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			for _, f := range []struct{ name, env string }{{"db", "SLEDGE_DB"}, {"repo", "SLEDGE_REPO"}} {
				if fl := cmd.Flag(f.name); fl != nil && fl.Changed { // --repo: the root's
					return fmt.Errorf("--%s: put it in the Secret (key %s, read by the agents as %s), not in the manifest: kubectl create secret generic %s --from-literal=db=… --from-literal=repo=…",
						f.name, f.name, f.env, cmp.Or(o.Secret, k8s.DefaultSecret))
				}
			}
			if !cmd.Flags().Changed("agents") {
				return errors.New("--agents is required: how many agents (pods) share the run, 1.." + fmt.Sprint(k8s.MaxAgents))
			}
			if arg, why := k8s.ForbiddenRunArg(args); arg != "" {
				return fmt.Errorf("%s after --: not a flag to give here: %s", arg, why)
			}
			o.RunArgs = args
			if err := o.Validate(); err != nil {
				return flagErrors(err)
			}
			window, err := checkRunFlags(gs, args, o.Agents)
			if err != nil {
				return err
			}
			o.Window = window
			y, err := k8s.Manifest(o)
			if err != nil {
				return flagErrors(err)
			}
			_, err = cmd.OutOrStdout().Write(y)
			return err
		},
	})
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

// checkRunFlags parses the run's flags as sledge run does, so that a typo
// or a run the agents would refuse is caught here rather than in N pods,
// and returns the run's ramp-up plus measured window when it is timed, else
// 0 (k8s.RunWindow).
func checkRunFlags(gs *globalState, args []string, agents int) (time.Duration, error) {
	run, s := runCommand(gs)
	fs := run.Flags()
	fs.String("server", "", "") // the root's, which sledge run inherits
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
	window, err := k8s.RunWindow(*s, agents)
	var refused *k8s.AgentsError
	switch {
	case errors.As(err, &refused):
		return 0, fmt.Errorf("--agents %d: %w", agents, err)
	case config.Fields(err) != nil:
		return 0, fmt.Errorf("after --: %w", flagErrors(err))
	case err != nil:
		return 0, fmt.Errorf("after --: --workload: %w", err)
	}
	return window, nil
}
