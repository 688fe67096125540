package main

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every command, and every subcommand its usage names (corral sim android, corral tasks
// export, …), given --check-config and settings it takes, says "configuration ok" and stops:
// nothing on standard output, no error. One that skipped the check would act instead: connect
// to a NATS that is not there, serve, or print what it prints. Its context is cancelled, so
// that one that acts ends soon rather than run. A command added without a case here fails.
func TestEveryCommandStopsAtCheckConfig(t *testing.T) {
	noNATSSettings(t)
	dir := t.TempDir()
	steps := filepath.Join(dir, "steps.yaml")
	require.NoError(t, os.WriteFile(steps, []byte("serial: s1\nsteps:\n  - method: home\n"), 0o600))
	turns := filepath.Join(dir, "turns.yaml")
	require.NoError(t, os.WriteFile(turns, []byte("- text: done\n"), 0o600))
	noNATS := []string{"--nats-url", "nats://127.0.0.1:1"}
	cases := map[string][]string{
		"up": {"--data", filepath.Join(dir, "data"), "--nats-port", "-1", "--http", "127.0.0.1:0", "--sim", "1",
			"--adb", "off", "--usbmuxd", "off"},
		"gateway":        append([]string{"--http", "127.0.0.1:0"}, noNATS...),
		"node":           append([]string{"--sim", "1", "--adb", "off", "--usbmuxd", "off", "--metrics", ""}, noNATS...),
		"vision":         append([]string{"--metrics", ""}, noNATS...),
		"nats-auth":      {"--node", "n1", "--dir", filepath.Join(dir, "auth")},
		"sim android":    {"--count", "1", "--listen", "127.0.0.1:0"},
		"sim ios":        {"--count", "1", "--listen", "127.0.0.1:0"},
		"sim arm":        {"--listen", "127.0.0.1:0", "--http", "127.0.0.1:0"},
		"sim model":      {"--listen", "127.0.0.1:0", "--script", turns},
		"arm calibrate":  append([]string{"s1"}, noNATS...),
		"arm recover":    append([]string{"s1"}, noNATS...),
		"arm page":       {"--listen", "127.0.0.1:0"},
		"mcp-stdio":      {"--gateway", "http://127.0.0.1:1/mcp"},
		"devices":        noNATS,
		"devices forget": append([]string{"--node", "n1"}, noNATS...),
		"leases":         noNATS,
		"call":           append(noNATS, "home", `{"serial":"s1"}`),
		"run":            {steps, "--gateway", "http://127.0.0.1:1/mcp"},
		"abort":          append([]string{"s1"}, noNATS...),
		"release":        append([]string{"s1", "--force"}, noNATS...),
		"drain":          append([]string{"n1"}, noNATS...),
		"tasks":          noNATS,
		"tasks export":   append([]string{"t1"}, noNATS...),
		"version":        nil,
	}
	stopped, cancel := context.WithCancel(t.Context())
	cancel()
	seen := map[string]bool{}
	for _, c := range commands() {
		names := []string{c.name}
		if subs := subcommandsIn(c); len(subs) > 0 {
			names = subs
			if c.name == "tasks" || c.name == "devices" { // commands of their own too
				names = append(names, c.name)
			}
		}
		for _, name := range names {
			seen[name] = true
			t.Run(name, func(t *testing.T) {
				args, ok := cases[name]
				require.True(t, ok, "corral %s has no case here: add the settings it takes", name)
				sub := strings.Fields(name)[1:]
				var err error
				var stdout string
				stderr := captureStderr(t, func() {
					stdout = captureStdout(t, func() {
						err = c.run(stopped, append(append(sub, "--check-config", "--log-level", "error"), args...))
					})
				})
				if name == "vision" && inProcessVision == nil {
					require.ErrorContains(t, err, "built without vision") // the check a corral without it can make
					return
				}
				require.NoError(t, err, "corral %s --check-config", name)
				assert.Equal(t, "configuration ok\n", stderr, "corral %s --check-config", name)
				assert.Empty(t, stdout, "corral %s --check-config", name)
			})
		}
	}
	for name := range cases {
		assert.True(t, seen[name], "a case for corral %s, which commands() does not have", name)
	}
	_, err := os.Stat(filepath.Join(dir, "data"))
	assert.ErrorIs(t, err, os.ErrNotExist, "corral up --check-config wrote --data")
	_, err = os.Stat(filepath.Join(dir, "auth"))
	assert.ErrorIs(t, err, os.ErrNotExist, "corral nats-auth --check-config wrote --dir")
}

// subcommandsIn names the subcommands c's usage shows ("corral sim android …" names
// "sim android"): a lower-case word after the command's name; arguments are upper case.
func subcommandsIn(c command) []string {
	re := regexp.MustCompile(`corral ` + regexp.QuoteMeta(c.name) + ` ([a-z][a-z-]*)`)
	var subs []string
	for _, m := range re.FindAllStringSubmatch(c.usage, -1) {
		if name := c.name + " " + m[1]; !slices.Contains(subs, name) {
			subs = append(subs, name)
		}
	}
	return subs
}
