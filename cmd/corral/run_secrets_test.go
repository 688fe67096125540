package main

import (
	"encoding/json"
	"fmt"
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

// runSecrets are the secrets TestRunReportsKeepSecretsOut's steps send, one of each kind: text
// put on the clipboard or typed (directly and in a sequence), a login's password and captcha,
// a URL's password.
var runSecrets = []string{"clip-SECRET-run", "in-SECRET-run", "seq-SECRET-run", "seqarg-SECRET-run", "run-SECRET-pw", "cap-SECRET-run", "url-SECRET-pw"}

// corral run's reports (JSON, JUnit), its table and its debug log hold none of the secret
// arguments its steps sent, nor the echo of them in a tool's answer (the login endpoint here
// repeats what it was sent): a secret argument shows as …(redacted), a URL's password as
// REDACTED. docs/web.md promises the password and captcha are kept out of records and logs.
func TestRunReportsKeepSecretsOut(t *testing.T) {
	if _, err := chromium.Find(); err != nil {
		t.Skipf("no Chromium for the browser device: %v", err)
	}
	login := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var in map[string]any
		_ = json.NewDecoder(r.Body).Decode(&in)
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"welcome": true, "youSent": in}) // an endpoint that echoes
	}))
	t.Cleanup(login.Close)
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Quiet: true,
		Platforms: []device.Platform{android.Platform(), web.Platform()}})
	phone := f.Devices()[0].Serial
	phoneProfile, _ := web.ProfileNamed("phone")
	browser, err := web.Start(t.Context(), web.Options{Serial: "web-02", Profile: phoneProfile})
	require.NoError(t, err)
	f.AddDriver("n1", browser)
	farmtest.Eventually(t, 30*time.Second, func() bool {
		d, ok := f.Gateway().Client.Device("web-02")
		return ok && d.State == broker.StateOnline
	}, "web-02 online")

	dir := t.TempDir()
	file := filepath.Join(dir, "sec.yaml")
	require.NoError(t, os.WriteFile(file, []byte(fmt.Sprintf(`steps:
  - method: send_to_clipboard
    params: "clip-SECRET-run"
  - method: app_launch
    params: com.corral.notes
  - tool: input
    arguments: {text: "in-SECRET-run"}
  - tool: get_source
    arguments: {}
  - tool: app_launch
    arguments: {packageName: "com.example.url-SECRET-pw"}
    options: {ignore_error: true}
  - tool: sequence
    arguments: {steps: [{tool_name: send_to_clipboard, args: {text: "seq-SECRET-run"}}, {tool_name: send_to_clipboard, arg: "seqarg-SECRET-run"}]}
  - method: web_login_none_ui
    params: {packageName: "%s/login", password: "run-SECRET-pw", captcha: "cap-SECRET-run", serial: web-02}
  - tool: app_launch
    arguments: {packageName: "http://user:url-SECRET-pw@%s/", serial: web-02}
`, login.URL, strings.TrimPrefix(login.URL, "http://"))), 0o600))
	jsonOut, junitOut := filepath.Join(dir, "sec.json"), filepath.Join(dir, "sec.xml")
	var runErr error
	output := captureOutput(t, func() { // stdout and stderr, the debug log's step lines among them
		runErr = runRun(t.Context(), []string{file, "--serial", phone, "--gateway", f.Gateway().MCPURL,
			"--json", jsonOut, "--junit", junitOut, "--keep-going", "--log-level", "debug"})
	})
	report := readFile(t, jsonOut)
	t.Logf("report:\n%s\noutput:\n%s", report, output)
	assert.Contains(t, report, `welcome`, "the login step ran, its endpoint's answer in the report")
	assert.Contains(t, report, `"failed": 0`)
	assert.Contains(t, report, `…(redacted)`)
	assert.Contains(t, output, `msg=step`, "the debug log's step lines")
	files := map[string]string{"json": report, "junit": readFile(t, junitOut), "stdout and stderr": output}
	if runErr != nil {
		files["error"] = runErr.Error()
	}
	for name, text := range files {
		for _, secret := range runSecrets {
			assert.NotContains(t, text, secret, name)
		}
	}
	assert.Contains(t, report, `"password": "…(redacted)"`)
	assert.Contains(t, report, `"captcha": "…(redacted)"`)
	assert.Contains(t, report, `"text": "…(redacted)"`)
	assert.Contains(t, report, `"packageName": "http://user:REDACTED@`)
	assert.Contains(t, report, `"packageName": "`+login.URL+`/login"`, "an argument that is no secret stays as sent")
}
