package tools

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestSecretsAreTheTypedText(t *testing.T) {
	secrets := func(tool, args string) []string {
		tl, ok := Lookup(tool)
		assert.True(t, ok, tool)
		return tl.Secrets(json.RawMessage(args))
	}
	assert.Equal(t, []string{"pw1"}, secrets("input", `{"text":"pw1"}`))
	assert.Equal(t, []string{"pw2"}, secrets("send_to_clipboard", `{"text":"pw2"}`))
	assert.Empty(t, secrets("tap_xy", `{"x":0.5,"y":0.5}`))
	assert.Empty(t, secrets("input", `{"text":""}`))
	// Both sequence forms, checked or not (an unknown argument makes the step invalid, but its
	// text is still a secret).
	assert.ElementsMatch(t, []string{"a", "b", "c"}, secrets("sequence",
		`{"steps":[{"tool_name":"input","args":{"text":"a"}},{"tool_name":"INPUT","arg":"b"},{"tool_name":"input","args":{"text":"c","bogus":1}},{"tool_name":"tap","arg":[0,0,1,1]}]}`))
	assert.ElementsMatch(t, []string{"d", "e"}, secrets("sequence",
		`{"step1":{"tool_name":"send_to_clipboard","arg":"d"},"step2":{"tool_name":"input","arg":{"text":"e"}}}`))
	// Arguments that are not even JSON hold nothing to find.
	assert.Empty(t, secrets("input", `{"text":`))
}

// Only tools whose arguments can hold a secret look for one in every task.
func TestOnlySecretHoldersLook(t *testing.T) {
	var holders []string
	for name, op := range DefaultOps() {
		if op.Secrets != nil {
			holders = append(holders, name)
		}
	}
	assert.ElementsMatch(t, []string{"input", "send_to_clipboard", "sequence", "web_login_none_ui"}, holders)
}
