package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/chromium"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/nodes/android"
	"github.com/corral-farm/corral/nodes/device"
	"github.com/corral-farm/corral/nodes/web"
)

// A letter typed is left out where it stands alone, not out of every word, serial, key and
// task id that holds it (QA: corral call input {"text":"e"} on web-02 said "input on
// w…(redacted)b-02 r…(redacted)fus…(redacted)d"; corral run's table and report likewise).
func TestTypedLetterLeavesOutputReadable(t *testing.T) {
	if _, err := chromium.Find(); err != nil {
		t.Skipf("no Chromium for the browser device: %v", err)
	}
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte("<html><body><p>two, with no field to type in</p></body></html>"))
	}))
	t.Cleanup(page.Close)
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Quiet: true,
		Platforms: []device.Platform{android.Platform(), web.Platform()}})
	phoneProfile, _ := web.ProfileNamed("phone")
	browser, err := web.Start(t.Context(), web.Options{Serial: "web-02", Profile: phoneProfile})
	require.NoError(t, err)
	f.AddDriver("n1", browser)
	farmtest.Eventually(t, 30*time.Second, func() bool {
		d, ok := f.Gateway().Client.Device("web-02")
		return ok && d.State == broker.StateOnline
	}, "web-02 online")
	gw := f.Gateway().MCPURL

	var code int
	said := captureOutput(t, func() {
		code = realMain([]string{"call", "--gateway", gw, "app_launch", `{"serial":"web-02","packageName":"` + page.URL + `/two.html"}`})
	})
	require.Equal(t, 0, code, said)
	said = captureOutput(t, func() {
		code = realMain([]string{"call", "--gateway", gw, "input", `{"serial":"web-02","text":"e"}`})
	})
	t.Logf("corral call input:\n%s", said)
	assert.Equal(t, 1, code, said)
	assert.Contains(t, said, "corral call: input on web-02 refused (bad_input)", "the refusal, readable")
	assert.NotContains(t, said, redactedMark, "the refusal does not quote the letter")

	dir := t.TempDir()
	file := filepath.Join(dir, "e.yaml")
	require.NoError(t, os.WriteFile(file, []byte("steps:\n"+
		"  - tool: app_launch\n    arguments: {serial: web-02, packageName: \""+page.URL+"/two.html\"}\n"+
		"  - tool: input\n    arguments: {serial: web-02, text: \"e\"}\n    options: {ignore_error: true}\n"+
		"  - tool: get_source\n    arguments: {serial: web-02}\n"), 0o600))
	jsonOut := filepath.Join(dir, "e.json")
	var runErr error
	table := captureOutput(t, func() {
		runErr = runRun(t.Context(), []string{file, "--gateway", gw, "--json", jsonOut, "--log-level", "error"})
	})
	report := readFile(t, jsonOut)
	t.Logf("table:\n%s\nreport:\n%s", table, report)
	require.NoError(t, runErr)
	var rep struct {
		Serial string `json:"serial"`
		Steps  []struct {
			Tool      string         `json:"tool"`
			Status    string         `json:"status"`
			Arguments map[string]any `json:"arguments"`
			Error     string         `json:"error"`
			Text      string         `json:"text"`
		} `json:"steps"`
	}
	require.NoError(t, json.Unmarshal([]byte(report), &rep))
	require.Len(t, rep.Steps, 3)
	for _, s := range rep.Steps {
		assert.Equal(t, "web-02", s.Arguments["serial"], "%s: its serial, whole", s.Tool)
	}
	assert.Equal(t, redactedMark, rep.Steps[1].Arguments["text"], "the letter typed, left out")
	assert.Contains(t, rep.Steps[1].Error, "input on web-02 refused (bad_input)")
	assert.Contains(t, rep.Steps[2].Text, "two, with no field to type in", "the page's text, whole")
	assert.Equal(t, 1, strings.Count(report, redactedMark), "the letter typed is all that is left out")
	assert.Contains(t, table, "web-02")
	assert.NotContains(t, table, redactedMark+"b-02")
}
