package main

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/nodes/agent/model/modelsim"
)

// docsScript is the script of docs/agent.md's "A scripted model", written to a file.
func docsScript(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "agent.md"))
	require.NoError(t, err)
	_, section, ok := strings.Cut(string(b), "\n## A scripted model\n")
	require.True(t, ok, "docs/agent.md has no section A scripted model")
	_, block, ok := strings.Cut(section, "```yaml\n")
	require.True(t, ok, "its section has no YAML block")
	script, _, _ := strings.Cut(block, "```")
	path := filepath.Join(t.TempDir(), "turns.yaml")
	require.NoError(t, os.WriteFile(path, []byte(script), 0o600))
	return path
}

// The documented script reads as the turns it says, and its JSON form as the same.
func TestModelScriptReadsYAMLAndJSON(t *testing.T) {
	want := []modelsim.Turn{
		{ToolCalls: []modelsim.ToolCall{{Name: "plan", Arguments: `{"steps":[{"title":"Open Notes"},{"title":"Write hello"}]}`}}},
		{Text: "I tap Notes on the home screen.", ToolCalls: []modelsim.ToolCall{{Name: "tap", Arguments: `{"bbox":[0.25,0.292,0.5,0.429]}`}}},
		{ToolCalls: []modelsim.ToolCall{{Name: "step_done", Arguments: `{"status":"success","summary":"Notes is open"}`}}},
		{Delay: time.Second, ToolCalls: []modelsim.ToolCall{{Name: "input", Arguments: `{"text":"hello"}`}}},
		{ToolCalls: []modelsim.ToolCall{{Name: "finished", Arguments: `{"content":"wrote hello in Notes"}`}}},
	}
	got, err := loadModelScript(docsScript(t))
	require.NoError(t, err)
	assert.Equal(t, want, got)

	js := filepath.Join(t.TempDir(), "turns.json")
	require.NoError(t, os.WriteFile(js, []byte(`[
	{"tool_calls": [{"name": "plan", "arguments": {"steps": [{"title": "Open Notes"}, {"title": "Write hello"}]}}]},
	{"text": "I tap Notes on the home screen.", "tool_calls": [{"name": "tap", "arguments": "{\"bbox\": [0.25, 0.292, 0.5, 0.429]}"}]},
	{"tool_calls": [{"name": "step_done", "arguments": {"status": "success", "summary": "Notes is open"}}]},
	{"delay": "1s", "tool_calls": [{"name": "input", "arguments": {"text": "hello"}}]},
	{"tool_calls": [{"name": "finished", "arguments": {"content": "wrote hello in Notes"}}]}
]`), 0o600))
	got, err = loadModelScript(js)
	require.NoError(t, err)
	assert.True(t, reflect.DeepEqual(want, got), "the JSON script reads as %+v", got)
}

// A script that is no list of turns is refused, naming the turn and its line and saying what
// to write.
func TestModelScriptRefusals(t *testing.T) {
	for _, c := range []struct{ script, want string }{
		{"", "is empty: give a list of turns"},
		{"text: hi\n", "holds no list of turns: give a list of turns"},
		{"- text: [\n", "is not valid YAML or JSON"},
		{"- text: hi\n- tool_calls:\n    - arguments: {x: 1}\n", "turn 2 (line 2): tool call 1: it names no tool: give name: TOOL"},
		{"- text: hi\n- tool_call: [{name: tap}]\n", `turn 2 (line 2): unknown key "tool_call" in a turn: did you mean "tool_calls"?`},
		{"- tool_calls: [{name: tap, args: {x: 1}}]\n", `turn 1 (line 1): tool call 1: unknown key "args" in a tool call`},
		{"- tool_calls: [{name: tap_xy, arguments: [0.5, 0.5]}]\n", "turn 1 (line 1): tool call 1: tap_xy: arguments are not an object"},
		{"- tool_calls: [{name: tap_xy, arguments: '{x: 0.5'}]\n", "turn 1 (line 1): tool call 1: tap_xy: arguments \"{x: 0.5\" are not JSON"},
		{"- tool_calls: {name: tap}\n", "turn 1 (line 1): tool_calls is not a list"},
		{"- text: hi\n\n- delay: 1s\n", "turn 2 (line 3): it has neither text nor tool_calls"},
		{"- text: hi\n  delay: soon\n", `turn 1 (line 1): delay "soon": give how long the model thinks`},
		{"- hello\n", `turn 1 (line 1): a turn is a set of keys (text, tool_calls, delay), not "hello"`},
		{"- text: hi\n  text: ho\n", "turn 1 (line 1): key text is given twice"},
	} {
		path := filepath.Join(t.TempDir(), "bad.yaml")
		require.NoError(t, os.WriteFile(path, []byte(c.script), 0o600))
		_, err := loadModelScript(path)
		if assert.Error(t, err, "%q", c.script) {
			assert.Contains(t, err.Error(), "--script "+path, "%q", c.script)
			assert.Contains(t, err.Error(), c.want, "%q", c.script)
		}
	}
	_, err := loadModelScript(filepath.Join(t.TempDir(), "none.yaml"))
	assert.ErrorContains(t, err, "none.yaml: no such file or directory")
}
