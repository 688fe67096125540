// Package which finds a program to run: the one an environment variable names, else the first
// of its usual names on PATH (the browsers tests and nodes drive).
package which

import (
	"os"
	"os/exec"
)

// First returns the path of the program the environment variable env names, if it is set,
// else of the first of names found on PATH; notFound when none is.
func First(env string, names []string, notFound error) (string, error) {
	if p := os.Getenv(env); p != "" {
		return exec.LookPath(p)
	}
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return p, nil
		}
	}
	return "", notFound
}
