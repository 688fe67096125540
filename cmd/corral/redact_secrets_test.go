package main

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/corral-farm/corral/internal/redact"
	"github.com/corral-farm/corral/mcp/steps"
)

// stepSecrets names what nodes/tools marks secret and a URL's password, nothing else: an
// address with an @ that is no URL's user part is no secret.
func TestStepSecrets(t *testing.T) {
	assert.ElementsMatch(t, []string{"pw", "cap"}, stepSecrets("web_login_none_ui",
		map[string]any{"packageName": "https://shop.example/login", "password": "pw", "captcha": "cap", "phoneNumber": "138"}))
	assert.ElementsMatch(t, []string{"s3cret"}, stepSecrets("app_launch", map[string]any{"packageName": "http://u:s3cret@h/"}))
	assert.ElementsMatch(t, []string{"tok"}, stepSecrets("app_launch", map[string]any{"packageName": "https://tok@h/"}))
	assert.Empty(t, stepSecrets("app_launch", map[string]any{"packageName": "com.example.app"}))
	assert.Empty(t, stepSecrets("app_launch", map[string]any{"packageName": "mail me at a@b.example"}))
	assert.Empty(t, stepSecrets("no_such_tool", map[string]any{"password": "x"}), "a tool this corral does not know names none")
}

// A secret that holds another is taken out whole, not left half shown.
func TestRedactorTakesTheLongestFirst(t *testing.T) {
	r := newRedactor(&steps.Document{Steps: []steps.Step{
		{Tool: "input", Arguments: map[string]any{"text": "hunter22"}},
		{Tool: "input", Arguments: map[string]any{"text": "hunter22-and-more"}},
	}}, "")
	res := r.result(steps.Result{Tool: "get_source", Text: "note: hunter22-and-more, then hunter22", Arguments: map[string]any{"text": "xhunter22-and-morex"}})
	assert.Equal(t, "note: …(redacted), then …(redacted)", res.Text)
	assert.Equal(t, "x…(redacted)x", res.Arguments["text"])
}

// A lease handle that holds a secret shows by its kind, not cut apart by the secret.
func TestRedactorKeepsHandlesWhole(t *testing.T) {
	r := &redactor{secrets: redact.NewSecrets(redactedMark, []string{"abcdefgh"})}
	assert.Equal(t, "held by lease_"+redactedMark, r.text("held by lease_abcdefghijklmnop"))
	r = &redactor{secrets: redact.NewSecrets(redactedMark, []string{"by lease_abcdefgh"})}
	assert.Equal(t, "held by lease_"+redactedMark, r.text("held by lease_abcdefghijklmnop"), "a secret that runs into a handle")
}
