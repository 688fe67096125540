package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// A filter no device, lease or task can match (a platform, tool or outcome no part of this
// corral has) is refused with exit 2 and the nearest known value, not run to list nothing.
// A known value, and a platform in any case, goes on (--check-config: "configuration ok").
func TestUnknownFilterValuesExit2(t *testing.T) {
	noNATSSettings(t)
	const gw = "http://127.0.0.1:1/mcp" // never dialled: --check-config
	checkConfigExits(t, []exitCase{
		{[]string{"devices", "--platform", "bogus", "--gateway", gw}, `--platform "bogus": use one of android, ios, arm, web`},
		{[]string{"devices", "--platform", "andriod", "--gateway", gw}, `--platform "andriod": did you mean "android"?`},
		{[]string{"leases", "--platform", "bogus", "--gateway", gw}, `--platform "bogus": use one of`},
		{[]string{"leases", "--platform", "iso", "--gateway", gw}, `did you mean "ios"?`},
		{[]string{"run", "--platform", "bogus", "steps.yaml"}, `--platform "bogus": use one of`},
		{[]string{"run", "--platform", "wbe", "steps.yaml"}, `--platform "wbe": did you mean "web"?`},
		{[]string{"tasks", "--tool", "bogus"}, `--tool "bogus": no tool is named so`},
		{[]string{"tasks", "--tool", "tap_xz"}, `--tool "tap_xz": did you mean "tap_xy"?`},
		{[]string{"tasks", "--outcome", "bogus"}, `--outcome "bogus": use one of succeeded, failed`},
		{[]string{"tasks", "--outcome", "faild"}, `--outcome "faild": did you mean "failed"?`},
		// known values, and no filter
		{[]string{"devices", "--platform", "ANDROID", "--gateway", gw}, ""},
		{[]string{"devices", "--platform", "", "--gateway", gw}, ""},
		{[]string{"leases", "--platform", "arm", "--gateway", gw}, ""},
		{[]string{"tasks", "--tool", "tap_xy", "--outcome", "failed"}, ""},
	})
}

// exitCase is a corral command line run with --check-config, and the refusal it must print
// with exit 2 ("": it is taken, exit 0).
type exitCase struct {
	args []string
	want string
}

// checkConfigExits runs each case's command line with --check-config and checks its exit
// status and refusal.
func checkConfigExits(t *testing.T, cases []exitCase) {
	t.Helper()
	for _, c := range cases {
		args := append(c.args, "--check-config")
		var code int
		out := captureOutput(t, func() { code = realMain(args) })
		shown := strings.Join(c.args, " ")
		if len(shown) > 80 {
			shown = shown[:80] + "…"
		}
		if c.want == "" {
			assert.Equal(t, 0, code, "corral %s: %.300s", shown, out)
			continue
		}
		assert.Equal(t, 2, code, "corral %s: %.300s", shown, out)
		assert.Contains(t, out, c.want, "corral %s", shown)
	}
}

// Flags given before a subcommand (corral tasks --gateway URL export ID) are refused with exit 2,
// naming the flags and where they go, as corral arm and corral sim do, and never their values (a URL may hold
// a password). Before, tasks read them as the history's and refused "export" as a mistyped
// subcommand, and arm printed its usage line.
func TestFlagsBeforeASubcommandExit2(t *testing.T) {
	noNATSSettings(t)
	const secretURL = "http://u:hunter2@127.0.0.1:1/mcp"
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"tasks", "--gateway", secretURL, "export", "T"},
			"--gateway given before export: export takes no flag before it; put --gateway after export: corral tasks export --gateway http://u:xxxxx@127.0.0.1:1/mcp T"},
		{[]string{"tasks", "--since", "-1s", "--json", "export", "T"}, "--since, --json given before export: export takes no flag before it; it has no --since, --json"},
		{[]string{"tasks", "--nats-url=nats://127.0.0.1:1", "export", "T"}, "--nats-url given before export"},
		{[]string{"arm", "--gateway", secretURL, "calibrate", "S"},
			"--gateway given before calibrate: calibrate takes no flag before it; its own flags go after it, as in corral arm calibrate [flags] SERIAL"},
		{[]string{"arm", "--timeout", "5s", "recover", "S"}, "--timeout given before recover"},
		{[]string{"sim", "--listen", "127.0.0.1:1", "android"},
			"--listen given before android: android takes no flag before it; its own flags go after it, as in corral sim android --count N --listen 127.0.0.1:PORT"},
	} {
		args := append(c.args, "--check-config")
		var code int
		out := captureOutput(t, func() { code = realMain(args) })
		assert.Equal(t, 2, code, "corral %s: %s", strings.Join(args, " "), out)
		assert.Contains(t, out, c.want, "corral %s", strings.Join(args, " "))
		assert.NotContains(t, out, "hunter2")
	}
	// A flag's value that reads "export" is the value, not the subcommand.
	var code int
	out := captureOutput(t, func() { code = realMain([]string{"tasks", "--serial", "export", "--check-config"}) })
	assert.Equal(t, 0, code, out)
}
