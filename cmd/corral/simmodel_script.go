package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/corral-farm/corral/nodes/agent/model/modelsim"
)

// maxScriptValues bounds the values a script's aliases may expand to, as maxConfigValues does.
const maxScriptValues = 100_000

// turnKeys and callKeys are what a script's turn and tool call may hold.
var (
	turnKeys = []string{"text", "tool_calls", "delay"}
	callKeys = []string{"name", "arguments"}
)

// loadModelScript reads the script of `corral sim model`: a YAML or JSON list of turns, one per
// model request, each with text, tool_calls (name and arguments) or both, and a delay. An error
// names the turn (from 1) and its line.
func loadModelScript(path string) ([]modelsim.Turn, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err // the path is named already
		}
		return nil, fmt.Errorf("--script %s: %w", path, err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("--script %s is not valid YAML or JSON: %w%s", path, err, yamlHint(err))
	}
	const want = "give a list of turns, one per model request, e.g.\n- tool_calls: [{name: finished, arguments: {content: done}}]"
	if len(doc.Content) == 0 {
		return nil, fmt.Errorf("--script %s is empty: %s", path, want)
	}
	list := doc.Content[0]
	if list.Kind != yaml.SequenceNode || len(list.Content) == 0 {
		return nil, fmt.Errorf("--script %s holds no list of turns: %s", path, want)
	}
	budget := maxScriptValues
	turns := make([]modelsim.Turn, 0, len(list.Content))
	for i, n := range list.Content {
		turn, err := scriptTurn(n, &budget)
		if err != nil {
			return nil, fmt.Errorf("--script %s: turn %d (line %d): %w", path, i+1, n.Line, err)
		}
		turns = append(turns, turn)
	}
	return turns, nil
}

// scriptTurn reads one turn of a script.
func scriptTurn(n *yaml.Node, budget *int) (modelsim.Turn, error) {
	var turn modelsim.Turn
	fields, err := keysOf(n, "a turn", turnKeys)
	if err != nil {
		return turn, err
	}
	if v, ok := fields["text"]; ok {
		if v.Kind != yaml.ScalarNode {
			return turn, errors.New("text is not text: give what the model says, e.g. text: I tap Settings")
		}
		if v.ShortTag() != "!!null" {
			turn.Text = v.Value
		}
	}
	if v, ok := fields["delay"]; ok {
		d, err := time.ParseDuration(v.Value)
		if v.Kind != yaml.ScalarNode || err != nil || d < 0 {
			return turn, fmt.Errorf("delay %q: give how long the model thinks before it answers, e.g. delay: 2s", v.Value)
		}
		turn.Delay = d
	}
	if v, ok := fields["tool_calls"]; ok {
		if v.Kind != yaml.SequenceNode {
			return turn, errors.New("tool_calls is not a list: give - name: TOOL with its arguments, one item per call")
		}
		for j, c := range v.Content {
			call, err := scriptCall(c, budget)
			if err != nil {
				return turn, fmt.Errorf("tool call %d: %w", j+1, err)
			}
			turn.ToolCalls = append(turn.ToolCalls, call)
		}
	}
	if turn.Text == "" && len(turn.ToolCalls) == 0 {
		return turn, errors.New("it has neither text nor tool_calls: give what the model answers")
	}
	return turn, nil
}

// scriptCall reads one tool call of a turn: its arguments an object, in YAML or as a JSON text.
func scriptCall(n *yaml.Node, budget *int) (modelsim.ToolCall, error) {
	var call modelsim.ToolCall
	fields, err := keysOf(n, "a tool call", callKeys)
	if err != nil {
		return call, err
	}
	if v := fields["name"]; v == nil || v.Kind != yaml.ScalarNode || strings.TrimSpace(v.Value) == "" {
		return call, errors.New("it names no tool: give name: TOOL, e.g. name: tap")
	}
	call.Name, call.Arguments = fields["name"].Value, "{}"
	v, ok := fields["arguments"]
	if !ok {
		return call, nil
	}
	var args any
	if v.Kind == yaml.ScalarNode && v.ShortTag() == "!!str" {
		// A JSON text, as the API itself carries arguments.
		if err := json.Unmarshal([]byte(v.Value), &args); err != nil {
			return call, fmt.Errorf("%s: arguments %q are not JSON: give an object, e.g. arguments: {x: 0.5, y: 0.5}", call.Name, v.Value)
		}
	} else if args, err = jsonValue(v, budget); err != nil {
		return call, fmt.Errorf("%s: arguments: %w", call.Name, err)
	}
	if _, isObject := args.(map[string]any); !isObject {
		return call, fmt.Errorf("%s: arguments are not an object: give its parameters by name, e.g. arguments: {x: 0.5, y: 0.5}", call.Name)
	}
	b, err := json.Marshal(args)
	if err != nil {
		return call, fmt.Errorf("%s: arguments: %w", call.Name, err)
	}
	call.Arguments = string(b)
	return call, nil
}

// keysOf returns the values of mapping n by key, refusing keys not in known and keys given twice.
func keysOf(n *yaml.Node, what string, known []string) (map[string]*yaml.Node, error) {
	if n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if n.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s is a set of keys (%s), not %q", what, strings.Join(known, ", "), n.Value)
	}
	out := map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i].Value
		if !slices.Contains(known, k) {
			return nil, fmt.Errorf("unknown key %q in %s%s (keys: %s)", k, what, didYouMean(k, known), strings.Join(known, ", "))
		}
		if out[k] != nil {
			return nil, fmt.Errorf("key %s is given twice: give it once", k)
		}
		v := n.Content[i+1]
		if v.Kind == yaml.AliasNode {
			v = v.Alias
		}
		out[k] = v
	}
	return out, nil
}

// jsonValue is n as JSON sees it: numbers, booleans and null as YAML reads them, any other
// scalar (a date too) as the text written.
func jsonValue(n *yaml.Node, budget *int) (any, error) {
	return yamlValue(n, budget, maxScriptValues, func(n *yaml.Node) (any, error) {
		switch n.ShortTag() {
		case "!!int", "!!float", "!!bool", "!!null":
			var v any
			err := n.Decode(&v)
			return v, err
		}
		return n.Value, nil
	})
}
