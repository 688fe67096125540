package mcp

import (
	"bytes"
	"encoding/json"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// The phone-agent seed's task JSON says "error": null where nothing went wrong, on the task
// and on each of its steps, and so does its run_agent_task answer; a client written to it
// reads the key, so it is there.

// nullIfEmpty is an error text as the record's error: null when there is none.
func nullIfEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// withNullError is obj, a JSON object (a node's JSON, which leaves an empty error out), with
// its error key: null, last, when it has none; its other keys are kept in their order. ok is
// false when obj is no JSON object: it is then returned as it came.
func withNullError(obj json.RawMessage) (_ json.RawMessage, ok bool) {
	var keys map[string]json.RawMessage
	if json.Unmarshal(obj, &keys) != nil || keys == nil {
		return obj, false
	}
	if _, ok := keys["error"]; ok {
		return obj, true
	}
	body := bytes.Clone(bytes.TrimSuffix(bytes.TrimSpace(obj), []byte("}"))) // obj's array may be shared
	if len(keys) > 0 {
		body = append(body, ',')
	}
	return append(body, `"error":null}`...), true
}

// stepsWithError gives each of an agent task's steps its error key (withNullError). Steps
// that are not a list of objects are kept as they came.
func stepsWithError(raw json.RawMessage) json.RawMessage {
	var steps []json.RawMessage
	if json.Unmarshal(raw, &steps) != nil {
		return raw
	}
	for i, step := range steps {
		var ok bool
		if steps[i], ok = withNullError(step); !ok {
			return raw
		}
	}
	b, err := json.Marshal(steps)
	if err != nil {
		return raw
	}
	return b
}

// nullableError lets the error of a background tool's result (run_agent_task's) be null in
// its output schema, as its answer has it (withNullError): a client that checks a result
// against the schema (the TypeScript SDK's does) would refuse the answer otherwise.
func nullableError() mcpgo.ToolOption {
	return func(t *mcpgo.Tool) {
		if p, ok := t.OutputSchema.Properties["error"].(map[string]any); ok {
			p["type"] = []any{"null", "string"}
		}
	}
}
