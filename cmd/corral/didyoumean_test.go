package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A mistyped command, subcommand, flag or config key is refused (exit 2) with the name it most
// likely meant, in any case, in a line or two, not above the whole usage.
func TestMistypedNamesSayWhatTheyMeant(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "corral.yaml")
	require.NoError(t, os.WriteFile(cfg, []byte("sim-andriod: 3\n"), 0o600))
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"devcies"}, `unknown command "devcies": did you mean "devices"?`},
		{[]string{"mcp_stdio"}, `unknown command "mcp_stdio": did you mean "mcp-stdio"?`},
		// another case is the name meant (DEVICES was 7 edits from devices: no hint)
		{[]string{"DEVICES"}, `unknown command "DEVICES": did you mean "devices"?`},
		{[]string{"devices", "--Platform", "android"}, "-Platform; did you mean --platform?"},
		{[]string{"sim", "andriod"}, `unknown simulator "andriod": did you mean "android"?`},
		{[]string{"arm", "calibrat", "S1"}, `unknown subcommand "calibrat": did you mean "calibrate"?`},
		{[]string{"arm", "recovr"}, `unknown subcommand "recovr": did you mean "recover"?`},
		{[]string{"help", "arm", "pag"}, `unknown subcommand "pag": did you mean "page"?`},
		{[]string{"tasks", "exprot", "T1"}, `unknown subcommand "exprot": did you mean "export"?`},
		{[]string{"tasks", "--limit", "5", "exprot", "T1"}, `unknown subcommand "exprot": did you mean "export"?`},
		{[]string{"devices", "--plaform", "android"}, "-plaform; did you mean --platform?"},
		{[]string{"up", "--sim-andriod", "2"}, "did you mean --sim-android?"},
		{[]string{"call", "--timout", "5s", "list_devices", "{}"}, "did you mean --timeout?"},
		{[]string{"up", "--config", cfg}, `unknown key "sim-andriod": did you mean "sim-android"?`},
	} {
		var code int
		out := captureOutput(t, func() { code = realMain(c.args) })
		assert.Contains(t, out, c.want, "corral %s", strings.Join(c.args, " "))
		assert.Equal(t, 2, code, "corral %s", strings.Join(c.args, " "))
		assert.NotContains(t, out, "commands:", "corral %s printed the whole usage", strings.Join(c.args, " "))
	}
	// A word near no command still gets the list of commands.
	var code int
	out := captureOutput(t, func() { code = realMain([]string{"frobnicate"}) })
	assert.Equal(t, 2, code)
	assert.Contains(t, out, "commands:")
	assert.NotContains(t, out, "did you mean")
}
