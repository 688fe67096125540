package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/corral-farm/corral/internal/redact"
)

// A command line is no place for a secret: ps shows it to every user of the host, and the
// shell's history keeps it. corral release refuses --lease HANDLE; corral call cannot refuse
// its JSON (scripts pass it so), but says once, without the values, which of its arguments
// are secrets and how to give them instead.

// warnArgvSecrets writes to w, once, a warning naming the arguments of tool that hold a lease
// handle or a secret (those the task records leave out: stepSecrets) when given, the call's
// JSON as its command line holds it, is not "-" (standard input, which ps does not show).
func warnArgvSecrets(w io.Writer, tool string, given []string, args map[string]any) {
	if len(given) == 0 || given[0] == "-" {
		return
	}
	var leases, secrets []string
	for k, v := range args {
		if holdsLeaseHandle(v) {
			leases = append(leases, fmt.Sprintf("%q", k))
		}
		if len(stepSecrets(tool, map[string]any{k: v})) > 0 {
			secrets = append(secrets, fmt.Sprintf("%q", k))
		}
	}
	if len(leases) == 0 && len(secrets) == 0 {
		return
	}
	slices.Sort(leases)
	slices.Sort(secrets)
	var held []string
	if len(leases) > 0 {
		held = append(held, "a lease handle in "+strings.Join(leases, ", "))
	}
	switch len(secrets) {
	case 0:
	case 1:
		held = append(held, "a secret in "+secrets[0])
	default:
		held = append(held, "secrets in "+strings.Join(secrets, ", "))
	}
	fix := fmt.Sprintf("give the JSON on standard input instead (corral call %s - < args.json)", tool)
	if len(leases) > 0 {
		fix += ", and the lease in $CORRAL_LEASE rather than in it: corral call adds it to a tool that takes one"
	}
	fmt.Fprintf(w, "corral call: warning: the arguments on the command line hold %s, which ps shows to every user of this host "+
		"and your shell's history keeps; %s\n", strings.Join(held, " and "), fix)
}

// holdsLeaseHandle says whether v, an argument value, holds a lease or group handle anywhere.
func holdsLeaseHandle(v any) bool {
	found := false
	walkStrings(v, func(s string) string { // each string back as it was: v stays
		redact.LeaseHandles(s, func(h string) string { found = true; return h })
		return s
	})
	return found
}
