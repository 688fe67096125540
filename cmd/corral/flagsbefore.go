package main

import (
	"flag"
	"fmt"
	"strings"
)

// A command with subcommands (corral arm, corral tasks export) takes a subcommand's flags after
// the subcommand only: `corral tasks --gateway URL export ID` would read the task history, not
// export through the gateway. Flags given before the subcommand are refused, naming where they go.

// flagsBeforeSubcommand refuses flags (names as given) put before subcommand sub of command cmd,
// as a usage error (exit 2); line is the subcommand's usage line. Values are not repeated: one
// may be a secret (a URL's password).
func flagsBeforeSubcommand(cmd, sub, line string, names []string) error {
	return &usageError{err: fmt.Errorf("%s given before %s: %s takes no flag before it; its own flags go after it, as in %s ('corral %s %s -h' lists them)",
		strings.Join(names, ", "), sub, sub, line, cmd, sub)}
}

// flagNames are the flags among args, as given ("--gateway"); a flag's value is skipped when fs,
// if not nil, says the flag takes one (so "--since -1s" names --since only).
func flagNames(fs *flag.FlagSet, args []string) []string {
	var names []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			continue
		}
		name, _, hasValue := strings.Cut(a, "=")
		names = append(names, name)
		if fs == nil || hasValue {
			continue
		}
		if fl := fs.Lookup(strings.TrimLeft(name, "-")); fl != nil && !isBoolFlag(fl) {
			i++
		}
	}
	return names
}
