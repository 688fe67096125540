package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/farmtest"
)

// corral run checks that its report files can be written before it runs a step: a run whose
// report is lost has used the device for nothing. The phone takes no input.
func TestRunChecksTheReportFileBeforeAnyStep(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Quiet: true})
	serial := f.Devices()[0].Serial
	phone := f.Phone(serial)
	before := phone.Operations()
	dir := t.TempDir()
	file := filepath.Join(dir, "steps.yaml")
	require.NoError(t, os.WriteFile(file, []byte("steps:\n  - method: tap_xy\n    params: [0.5, 0.5]\n"), 0o600))
	for flag, path := range map[string]string{"--junit": "/nonexistent/dir/r.xml", "--json": "/nonexistent/dir/r.json"} {
		err := runRun(t.Context(), []string{file, "--serial", serial, "--gateway", f.Gateway().MCPURL, flag, path, "--log-level", "error"})
		require.Error(t, err, flag)
		assert.Contains(t, err.Error(), flag+" "+path+": the report could not be written there")
		assert.Contains(t, err.Error(), "nothing ran")
	}
	err := runRun(t.Context(), []string{file, "--serial", serial, "--gateway", f.Gateway().MCPURL, "--junit", dir, "--log-level", "error"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "--junit "+dir+" is a directory: give the report's file in it, e.g. "+filepath.Join(dir, "report.xml"))
	assert.Empty(t, phone.InputLog(), "a step ran")
	assert.Equal(t, before, phone.Operations(), "a step ran")

	// The same run with a report it can write runs the step.
	report := filepath.Join(dir, "r.xml")
	require.NoError(t, runRun(t.Context(), []string{file, "--serial", serial, "--gateway", f.Gateway().MCPURL, "--junit", report, "--log-level", "error"}))
	assert.FileExists(t, report)
	assert.Greater(t, phone.Operations(), before)
}

// A command that takes no arguments besides its flags refuses one, instead of ignoring it.
func TestCommandsRefuseUnexpectedArguments(t *testing.T) {
	for name, err := range map[string]error{
		"devices":   runDevices(t.Context(), []string{"extra-arg"}),
		"leases":    runLeases(t.Context(), []string{"--json", "extra-arg"}),
		"mcp-stdio": runMCPStdio(t.Context(), []string{"extra-arg"}),
		"gateway":   runGateway(t.Context(), []string{"--check-config", "extra-arg"}),
		"node":      runNode(t.Context(), []string{"--check-config", "extra-arg"}),
		"sim ios":   runSimIOS(t.Context(), []string{"--check-config", "extra-arg"}),
	} {
		if assert.Error(t, err, name) {
			assert.Contains(t, err.Error(), `unexpected argument "extra-arg": corral `+name+` takes flags only ('corral `+name+` -h' lists them)`)
		}
	}
}

// corral call's arguments are a JSON object; anything else is refused in the gateway's words.
func TestCallArgumentsMustBeAnObject(t *testing.T) {
	for arg, want := range map[string]string{
		"[1,2]":   "arguments must be a JSON object, got an array",
		`"x"`:     "arguments must be a JSON object, got a string",
		"3":       "arguments must be a JSON object, got a number",
		"{serial": "arguments must be a JSON object, e.g. '{\"serial\":\"S\"}': invalid character",
	} {
		_, err := callArgs([]string{arg})
		if assert.Error(t, err, arg) {
			assert.Contains(t, err.Error(), want)
			assert.NotContains(t, err.Error(), "Go value")
		}
	}
	args, err := callArgs([]string{`{"serial":"s1"}`})
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"serial": "s1"}, args)
}

// corral run --check-config makes, without a gateway, the checks the run makes before its
// first step: a device step needs a device (--serial, the file's, or an acquire_device step
// before it), and the tools and their arguments are this corral's.
func TestRunCheckConfigChecksEveryStepHasADevice(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		file := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(file, []byte(body), 0o600))
		return file
	}
	bare := write("bare.yaml", "steps:\n  - method: home\n")
	err := runRun(t.Context(), []string{bare, "--check-config", "--log-level", "error"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "step 1 (line 2, home): no device: pass --serial")

	require.NoError(t, runRun(t.Context(), []string{bare, "--check-config", "--serial", "sim-local-01", "--log-level", "error"}))
	leased := write("leased.yaml", "steps:\n  - tool: acquire_device\n    arguments: {tags: [sim]}\n  - method: home\n")
	require.NoError(t, runRun(t.Context(), []string{leased, "--check-config", "--log-level", "error"}))

	typo := write("typo.yaml", "serial: s1\nsteps:\n  - method: tap_xz\n")
	err = runRun(t.Context(), []string{typo, "--check-config", "--log-level", "error"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `(did you mean "tap_xy"?)`)
}

// A flag given last without its value is a usage error, not a flag whose value is the "--"
// the flags were moved before: `corral release S --force --by` released the device "by --".
func TestAFlagGivenLastWithoutItsValueIsRefused(t *testing.T) {
	const gw = "http://127.0.0.1:1/mcp" // never reached: the flags are refused first
	for name, c := range map[string]struct {
		err  error
		flag string
	}{
		"release --force --by": {runRelease(t.Context(), []string{"sim-local-01", "--force", "--gateway", gw, "--by"}), "-by"},
		"drain --by":           {runDrain(t.Context(), []string{"local", "--gateway", gw, "--by"}), "-by"},
		"call --timeout":       {runCall(t.Context(), []string{"tap_xy", "--timeout"}), "-timeout"},
		"call --gateway":       {runCall(t.Context(), []string{"tap_xy", "--gateway"}), "-gateway"},
		"run --serial":         {runRun(t.Context(), []string{"steps.yaml", "--serial"}), "-serial"},
	} {
		var usage *usageError
		if assert.ErrorAs(t, c.err, &usage, name) {
			assert.Contains(t, c.err.Error(), "flag needs an argument: "+c.flag, name)
			assert.NotContains(t, c.err.Error(), `"--"`, name)
		}
	}
}
