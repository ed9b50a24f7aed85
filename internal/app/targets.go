package app

import (
	"fmt"
	"os"
)

// NamedTargets are a server's named targets as its operator gives them:
// NAME=URL items (ParseNamedTarget), given with the flag itemsFlag, then
// files of them (ReadTargets), given with filesFlag. A name given twice is
// refused; an error names the flag or the file's line.
func NamedTargets(items, files []string, itemsFlag, filesFlag string) (map[string]string, error) {
	named := map[string]string{}
	add := func(name, target, where string) error {
		if _, dup := named[name]; dup {
			return fmt.Errorf("%s: target %s is named twice", where, name)
		}
		named[name] = target
		return nil
	}
	for _, t := range items {
		name, target, err := ParseNamedTarget(t)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", itemsFlag, err)
		}
		if err := add(name, target, itemsFlag); err != nil {
			return nil, err
		}
	}
	for _, file := range files {
		f, err := os.Open(file)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", filesFlag, err)
		}
		more, err := ReadTargets(f, file)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", filesFlag, err)
		}
		for name, target := range more {
			if err := add(name, target, file); err != nil {
				return nil, err
			}
		}
	}
	return named, nil
}
