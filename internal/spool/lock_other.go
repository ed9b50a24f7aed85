//go:build !unix

package spool

import (
	"errors"
	"os"
)

var errLocked = errors.New("locked")

// lock does nothing where Sledge has no file locks: a spool file could then
// be handed in while its writer still runs, as the header's pid says.
func lock(*os.File) error { return nil }

// ownedByMe cannot tell an owner here; the directory's mode still must be
// private.
func ownedByMe(os.FileInfo) bool { return true }

// processGone cannot tell here: a locked file is taken as its writer's.
func processGone(int) bool { return false }
