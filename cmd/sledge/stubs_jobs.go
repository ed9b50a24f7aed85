package main

import "github.com/spf13/cobra"

// Placeholder until the jobs repository lands.
func newJobsCmd(g *globals) *cobra.Command { return &cobra.Command{Use: "jobs", Hidden: true} }
