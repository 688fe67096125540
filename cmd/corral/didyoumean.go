package main

import (
	"flag"
	"fmt"
	"strings"

	"github.com/corral-farm/corral/internal/typo"
)

// didYouMean is `: did you mean "NAME"?` for the name of names nearest a mistyped word, or "".
func didYouMean(word string, names []string) string {
	if near, ok := typo.Nearest(word, names); ok {
		return fmt.Sprintf(": did you mean %q?", near)
	}
	return ""
}

// commandHint is the "did you mean" of an unknown command, or "".
func commandHint(word string) string {
	var names []string
	for _, c := range commands() {
		names = append(names, c.name)
	}
	return didYouMean(word, append(names, "help"))
}

// unknownSubcommand refuses word, a mistyped subcommand (a kind: "subcommand", "simulator")
// of command cmd, with the name of names it most likely meant, as a usage error (exit 2) in one
// line; nil when word is near none of them (the caller then prints its usage line).
func unknownSubcommand(cmd, kind, word string, names []string) error {
	hint := didYouMean(word, names)
	if hint == "" {
		return nil
	}
	return &usageError{err: fmt.Errorf("unknown %s %q%s ('corral %s -h' lists them)", kind, word, hint, cmd)}
}

// undefinedFlagPrefix starts the flag package's error for a flag a FlagSet does not have.
const undefinedFlagPrefix = "flag provided but not defined: -"

// flagHint adds to the flag package's error for an undefined flag the nearest flag of fs:
// "flag provided but not defined: -plaform; did you mean --platform?". Other errors are
// returned as they are.
func flagHint(fs *flag.FlagSet, err error) error {
	name, ok := strings.CutPrefix(err.Error(), undefinedFlagPrefix)
	if !ok {
		return err
	}
	var names []string
	fs.VisitAll(func(fl *flag.Flag) { names = append(names, fl.Name) })
	if near, ok := typo.Nearest(name, names); ok {
		return fmt.Errorf("%w; did you mean --%s?", err, near)
	}
	return err
}
