package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/farmtest"
)

// QA: a replay that failed after typing quoted the screen with the typed texts hidden
// ("…(redacted)…(redacted)"), and nothing said which step typed them. The failure names each
// step whose text it hides, by number, name and tool, with the text's length, and still shows
// no secret.
func TestRunNamesTheStepsWhoseTypedTextItHides(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Quiet: true})
	phone := f.Devices()[0].Serial
	const typed, long = "Hunter2Passw0rd", "Long-SECRET-typed-into-the-note"
	dir := t.TempDir()
	file := filepath.Join(dir, "typed.yaml")
	require.NoError(t, os.WriteFile(file, []byte(fmt.Sprintf(`serial: %s
steps:
  - {method: home}
  - {method: tap_xy, params: [0.375, 0.36], expect: "Clear"}
  - {tool: input, arguments: {text: %q}, name: "step 2: Write the password"}
  - {tool: input, arguments: {text: %q}, expect: "Saved", expect_timeout: 0.5}
  - {tool: input, arguments: {text: "not typed"}}
`, phone, typed, long)), 0o600))
	jsonOut := filepath.Join(dir, "typed.json")
	var runErr error
	output := captureOutput(t, func() {
		runErr = runRun(t.Context(), []string{file, "--gateway", f.Gateway().MCPURL, "--json", jsonOut})
	})
	report := readFile(t, jsonOut)
	require.Error(t, runErr, "step 4's expect fails")
	const note = `; the secret text hidden here is step 3's text (input "step 2: Write the password", 15 characters), step 4's text (input, 31 characters)`
	assert.Contains(t, output, `the screen shows "12:00"`)
	assert.Contains(t, output, `"…(redacted)…(redacted)", "46 characters"`+note+"\n", "the table's error line")
	assert.Contains(t, report, `…(redacted)…(redacted)\", \"46 characters\"`+strings.ReplaceAll(note, `"`, `\"`)+`",`, "the JSON report")
	for name, text := range map[string]string{"json": report, "stdout and stderr": output, "error": runErr.Error()} {
		for _, secret := range []string{typed, long, long[:8], "not typed"} {
			assert.NotContains(t, text, secret, name)
		}
	}
}
