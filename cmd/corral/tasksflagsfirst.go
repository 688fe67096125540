package main

import (
	"flag"
	"fmt"
	"net/url"
	"strings"
)

// tasksExportFirst refuses `corral tasks --out F export T`: flags given before export, which the
// history's flag set would otherwise read (and refuse --out with a did-you-mean to --outcome). It
// says where they go, rebuilding the command with export's flags after it; flags export does not
// have are named as such. tasks is the history's flag set, to tell a flag's value ("--serial
// export") from the subcommand. A URL's password is never repeated.
func tasksExportFirst(tasks *flag.FlagSet, args []string) error {
	if len(args) == 0 || !strings.HasPrefix(args[0], "-") {
		return nil
	}
	export, _ := newTasksExportFlags()
	var names, moved, foreign []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return nil
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			if a != "export" {
				return nil // a history's positional argument: its own check refuses it
			}
			return exportFlagsBefore(names, moved, foreign, args[i+1:])
		}
		name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		given := []string{a}
		fl := tasks.Lookup(name)
		if fl == nil {
			fl = export.Lookup(name)
		}
		if !hasValue && fl != nil && !isBoolFlag(fl) && i+1 < len(args) {
			i++
			given = append(given, args[i])
		}
		names = append(names, strings.SplitN(a, "=", 2)[0])
		if export.Lookup(name) != nil {
			moved = append(moved, given...)
		} else {
			foreign = append(foreign, strings.SplitN(a, "=", 2)[0])
		}
	}
	return nil
}

// exportFlagsBefore is the refusal of flags given before export (names), as a usage error
// (exit 2): moved are export's own flags with their values, foreign the flags it does not have,
// rest what followed export.
func exportFlagsBefore(names, moved, foreign, rest []string) error {
	msg := fmt.Sprintf("%s given before export: export takes no flag before it", strings.Join(names, ", "))
	if len(foreign) > 0 {
		msg += fmt.Sprintf("; it has no %s ('corral tasks export -h' lists its flags)", strings.Join(foreign, ", "))
	}
	if len(moved) == 0 {
		return &usageError{err: fmt.Errorf("%s; as in %s", msg, tasksExportLine)}
	}
	var flags []string
	for _, a := range moved {
		if strings.HasPrefix(a, "-") {
			flags = append(flags, strings.SplitN(a, "=", 2)[0])
		}
	}
	cmd := append(append([]string{"corral tasks export"}, redactURLs(moved)...), redactURLs(rest)...)
	return &usageError{err: fmt.Errorf("%s; put %s after export: %s", msg, strings.Join(flags, ", "), strings.Join(cmd, " "))}
}

// redactURLs hides the password of any URL among args (a flag's value, or one of a
// comma-separated list such as --nats-url's), keeping the rest as given.
func redactURLs(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		prefix, value := "", a
		if strings.HasPrefix(a, "-") {
			if n, v, ok := strings.Cut(a, "="); ok {
				prefix, value = n+"=", v
			}
		}
		parts := strings.Split(value, ",")
		for j, p := range parts {
			if u, err := url.Parse(p); err == nil && u.User != nil {
				parts[j] = u.Redacted()
			}
		}
		out[i] = prefix + strings.Join(parts, ",")
	}
	return out
}
