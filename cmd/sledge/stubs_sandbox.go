package main

import "github.com/spf13/cobra"

// Placeholder until the sandbox lands.
func newSandboxCmd(g *globals) *cobra.Command { return &cobra.Command{Use: "sandbox", Hidden: true} }
