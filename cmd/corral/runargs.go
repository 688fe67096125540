package main

import (
	"fmt"
	"strconv"
	"strings"
)

// runLine is corral run's command line.
const runLine = "corral run FILE [--gateway URL] [--serial S] [--platform P] [--json FILE|-] [--junit FILE] [--keep-going]"

// runFileArg checks that corral run was given its one steps file. A run is one file's steps
// with one report (docs/scripted-runs.md); given more, it printed only its usage line, which
// did not say that the second FILE was the mistake.
func runFileArg(args []string) error {
	switch len(args) {
	case 0:
		return fmt.Errorf("usage: %s", runLine)
	case 1:
		return nil
	}
	fix := "run each file with its own corral run (its own --json and --junit), or put their steps in one file; " +
		"a flag without its dashes is taken as a FILE too"
	what := fmt.Sprintf("%d arguments besides the flags (%s)", len(args), quoteAll(args))
	if len(args) == 2 && args[0] == args[1] {
		what, fix = fmt.Sprintf("%q twice", args[0]), "give it once"
	}
	return &usageError{err: fmt.Errorf("one steps FILE per run (one report), and got %s: %s\nusage: %s", what, fix, runLine)}
}

func quoteAll(args []string) string {
	quoted := make([]string, len(args))
	for i, a := range args {
		quoted[i] = strconv.Quote(a)
	}
	return strings.Join(quoted, ", ")
}
