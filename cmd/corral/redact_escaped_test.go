package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/farmtest"
)

// QA: a password typed into a field showed in corral run's reports, in get_source's XML, where
// the field's text is escaped (Tr0ub\u0026amp;dor3 in the JSON report, p&lt;ss&amp;w0rd&#34;x&#39;).
// The reports (JSON, JUnit) and the table leave it out however the screen's markup spells it.
func TestRunReportsRedactEscapedSecrets(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Quiet: true})
	serial := f.Devices()[0].Serial
	dir := t.TempDir()
	file := filepath.Join(dir, "steps.yaml")
	require.NoError(t, os.WriteFile(file, []byte("steps:\n"+
		"  - tool: app_clear\n    arguments: {serial: "+serial+", packageName: com.corral.notes}\n"+
		"  - tool: app_launch\n    arguments: {serial: "+serial+", packageName: com.corral.notes}\n"+
		"  - tool: input\n    arguments: {serial: "+serial+", text: \"Tr0ub&dor3\"}\n"+
		"  - tool: get_source\n    arguments: {serial: "+serial+"}\n"+
		"  - tool: app_clear\n    arguments: {serial: "+serial+", packageName: com.corral.notes}\n"+
		"  - tool: app_launch\n    arguments: {serial: "+serial+", packageName: com.corral.notes}\n"+
		"  - tool: input\n    arguments: {serial: "+serial+", text: \"p<ss&w0rd\\\"x'\"}\n"+
		"  - tool: get_source\n    arguments: {serial: "+serial+"}\n"), 0o600))
	jsonOut, junitOut := filepath.Join(dir, "r.json"), filepath.Join(dir, "r.xml")
	table := captureOutput(t, func() {
		require.NoError(t, runRun(t.Context(), []string{file, "--serial", serial, "--gateway", f.Gateway().MCPURL,
			"--json", jsonOut, "--junit", junitOut, "--log-level", "error"}))
	})
	report, junit := readFile(t, jsonOut), readFile(t, junitOut)
	for name, text := range map[string]string{"table": table, "json": report, "junit": junit} {
		for _, part := range []string{"Tr0ub", "dor3", "p<ss", "p&lt;ss", `p\u003css`, `p\u0026lt;ss`, "w0rd"} {
			assert.NotContains(t, text, part, name)
		}
	}
	// The typed text was on the screen, and shows as left out there.
	var rep struct {
		Steps []struct {
			Tool, Text string
		} `json:"steps"`
	}
	require.NoError(t, json.Unmarshal([]byte(report), &rep))
	require.Len(t, rep.Steps, 8)
	for _, i := range []int{3, 7} {
		assert.Equal(t, "get_source", rep.Steps[i].Tool)
		assert.Contains(t, rep.Steps[i].Text, `text=\"`+redactedMark+`\"`, "the note's field")
	}
}
