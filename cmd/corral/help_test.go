package main

import (
	"io"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/buildinfo"
)

// Help asked for is not an error: corral --help, corral help and every corral X --help exit 0;
// no command, or an unknown one, is a usage error (2).
func TestHelpAskedForExitsZero(t *testing.T) {
	for _, args := range [][]string{
		{"--help"}, {"-h"}, {"help"},
		{"devices", "--help"}, {"call", "-h"}, {"up", "--help"}, {"gateway", "-h"}, {"node", "--help"},
		{"vision", "--help"}, {"sim", "--help"}, {"sim", "android", "-h"}, {"arm", "-h"}, {"arm", "calibrate", "--help"},
		{"tasks", "--help"}, {"tasks", "export", "-h"}, {"run", "--help"}, {"release", "-h"}, {"drain", "--help"},
	} {
		var code int
		captureOutput(t, func() { code = realMain(args) })
		assert.Equal(t, 0, code, "%v", args)
	}
	for _, args := range [][]string{{}, {"no-such-command"}} {
		var code int
		captureOutput(t, func() { code = realMain(args) })
		assert.Equal(t, 2, code, "%v", args)
	}
}

// corral help help is the top usage, as corral help is, and that usage names corral help CMD
// (it said unknown command "help" and exited 2).
func TestHelpHelpIsTheTopUsage(t *testing.T) {
	var code int
	var stdout string
	stderr := captureStderr(t, func() { stdout = captureStdout(t, func() { code = realMain([]string{"help", "help"}) }) })
	require.Equal(t, 0, code, "stderr: %s", stderr)
	assert.Empty(t, stderr)
	assert.Contains(t, stdout, "usage: corral COMMAND [flags]")
	assert.Contains(t, stdout, "corral help COMMAND")
	top := captureStdout(t, func() { code = realMain([]string{"help"}) })
	assert.Equal(t, top, stdout)
}

// corral call's help shows how a tool and its arguments are given, and --out takes any image.
func TestCallHelpShowsTheToolForm(t *testing.T) {
	out := captureOutput(t, func() { realMain([]string{"call", "--help"}) })
	assert.Contains(t, out, "corral call [flags] TOOL ['{json arguments}' | -]")
	assert.Contains(t, out, `corral call tap_xy '{"serial":"sim-local-01","x":0.5,"y":0.5}'`)
	assert.Contains(t, out, `PNG when asked, e.g. take_screenshot {"format":"png"}`)
}

// captureOutput runs fn with standard output and error going to a pipe, and returns what it
// wrote to either.
func captureOutput(t *testing.T, fn func()) string {
	t.Helper()
	r, w, err := os.Pipe()
	require.NoError(t, err)
	stdout, stderr := os.Stdout, os.Stderr
	os.Stdout, os.Stderr = w, w
	done := make(chan string)
	go func() {
		b, _ := io.ReadAll(r)
		done <- string(b)
	}()
	defer func() { os.Stdout, os.Stderr = stdout, stderr }()
	fn()
	os.Stdout, os.Stderr = stdout, stderr
	require.NoError(t, w.Close())
	return <-done
}

// Each operator command's -h gives its own --timeout text (call's speaks of wait_seconds), and
// abort's and release's name the SERIAL they take.
func TestOperatorHelpIsEachCommandsOwn(t *testing.T) {
	for _, cmd := range []string{"devices", "leases", "abort", "tasks"} {
		out := captureOutput(t, func() { realMain([]string{cmd, "-h"}) })
		assert.Contains(t, out, "-timeout", cmd)
		assert.NotContains(t, out, "wait_seconds", cmd)
	}
	assert.Contains(t, captureOutput(t, func() { realMain([]string{"call", "-h"}) }), "its wait_seconds, then its timeout_ms")
	assert.Contains(t, captureOutput(t, func() { realMain([]string{"abort", "-h"}) }), "usage: corral abort [--all] [--by WHO] SERIAL")
	assert.Contains(t, captureOutput(t, func() { realMain([]string{"release", "-h"}) }), "usage: corral release SERIAL --force")
}

// An unknown flag is told once (by the flag package, before the command's flags), and every
// usage error, of a flag, an argument or a command, exits 2.
func TestUsageErrorsAreToldOnceAndExitTwo(t *testing.T) {
	for _, args := range [][]string{{"call", "--nosuch", "home"}, {"devices", "--nosuch"}, {"drain", "--nosuch", "n1"}} {
		var code int
		out := captureOutput(t, func() { code = realMain(args) })
		assert.Equal(t, 2, code, "%v", args)
		assert.Equal(t, 1, strings.Count(out, "flag provided but not defined: -nosuch"), "%v: %s", args, out)
	}
	for _, args := range [][]string{{"call"}, {"devices", "extra"}, {"abort"}, {"version", "extra"}} {
		var code int
		out := captureOutput(t, func() { code = realMain(args) })
		assert.Equal(t, 2, code, "%v: %s", args, out)
	}
}

// corral --version is corral version, and corral version -h is help.
func TestVersionFlagAndHelp(t *testing.T) {
	var code int
	out := captureOutput(t, func() { code = realMain([]string{"--version"}) })
	assert.Equal(t, 0, code)
	assert.Equal(t, buildinfo.Version()+"\n", out)
	out = captureOutput(t, func() { code = realMain([]string{"version", "-h"}) })
	assert.Equal(t, 0, code)
	assert.Contains(t, out, "usage: corral version")
}
