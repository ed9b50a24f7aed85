package main

import "github.com/spf13/cobra"

// Placeholders until the TPROC-C commands land.
func newBuildCmd(g *globals) *cobra.Command { return &cobra.Command{Use: "build", Hidden: true} }
func newRunCmd(g *globals) *cobra.Command   { return &cobra.Command{Use: "run", Hidden: true} }
func newCheckCmd(g *globals) *cobra.Command { return &cobra.Command{Use: "check", Hidden: true} }
func newDropCmd(g *globals) *cobra.Command  { return &cobra.Command{Use: "drop", Hidden: true} }
