package main

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/farmtest"
)

// A step's expect is often the text it typed (corral tasks export sets it so), and a failed
// expect quotes the screen, which shows what was typed. Neither leaves a secret in corral run's
// JSON, JUnit or table. QA saw `"expect":"Hunter2Passw0rd"` in the JSON report, and the start
// of a secret in "the screen shows …", cut before the redaction could match it.
func TestRunKeepsTypedSecretsOutOfExpect(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Quiet: true})
	phone := f.Devices()[0].Serial
	const typed, long = "Hunter2Passw0rd", "Long-SECRET-typed-into-the-note"
	dir := t.TempDir()
	file := filepath.Join(dir, "sec.yaml")
	// The note shows typed+long, 46 runes: the failed check quotes it cut to 40.
	require.NoError(t, os.WriteFile(file, []byte(fmt.Sprintf(`serial: %s
steps:
  - {method: home}
  - {method: tap_xy, params: [0.375, 0.36], expect: "Clear"}
  - {tool: input, arguments: {text: %q}, expect: %q}
  - {tool: input, arguments: {text: %q}, expect: "Saved", expect_timeout: 0.5}
`, phone, typed, typed, long)), 0o600))
	jsonOut, junitOut := filepath.Join(dir, "sec.json"), filepath.Join(dir, "sec.xml")
	var runErr error
	output := captureOutput(t, func() {
		runErr = runRun(t.Context(), []string{file, "--gateway", f.Gateway().MCPURL, "--json", jsonOut, "--junit", junitOut})
	})
	report := readFile(t, jsonOut)
	t.Logf("report:\n%s\noutput:\n%s", report, output)
	require.Error(t, runErr, "step 4's expect fails")
	assert.Contains(t, report, `"passed": 3`)
	assert.Contains(t, report, `"expect": "…(redacted)"`, "step 3's expect, the text it typed")
	assert.Contains(t, report, `not there after 0.5 s: the screen shows`)
	assert.Contains(t, report, `…(redacted)…(redacted)`, "the note, both texts typed into it")
	files := map[string]string{"json": report, "junit": readFile(t, junitOut), "stdout and stderr": output, "error": runErr.Error()}
	for name, text := range files {
		for _, secret := range []string{typed, long, long[:8]} {
			assert.NotContains(t, text, secret, name)
		}
	}
}
