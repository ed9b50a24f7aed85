package server

import (
	"fmt"
	"io"
	"strings"

	"github.com/sledge-bench/sledge/internal/app"
)

// AnnouncePolicy says at start what jobs may target (on out);
// --allow-any-target loudly, on errOut too. root says the server runs as
// root, whose reach the warning names.
func AnnouncePolicy(out, errOut io.Writer, p *app.TargetPolicy, root bool) {
	var names []string
	for _, t := range p.Names() {
		names = append(names, t.Name+" ("+t.Kind+")")
	}
	list := "none"
	if len(names) > 0 {
		list = strings.Join(names, ", ")
	}
	if p.AllowAny {
		who := "this server's user"
		if root {
			who = "root"
		}
		fmt.Fprintf(errOut, "\n*** WARNING: --allow-any-target: jobs may name ANY database URL or file path.\n"+
			"*** This server will dial any host and port a request names and create database files and\n"+
			"*** directories anywhere %s can write. Only use it where nobody else can reach the API.\n\n", who)
		fmt.Fprintf(out, "targets: ANY (--allow-any-target); named: %s\n", list)
		return
	}
	fmt.Fprintf(out, "targets: named: %s; embedded databases inside %s\n", list, p.DataDir)
}
