package mcp

import (
	"bytes"
	"encoding/json"
)

// The phone-agent seed's task JSON says "error": null where nothing went wrong, on the task
// and on each of its steps; a client written to it reads the key, so it is there.

// nullIfEmpty is an error text as the record's error: null when there is none.
func nullIfEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// stepsWithError gives each of an agent task's steps (its node's JSON, which leaves an empty
// error out) its error key, null when the step has none, last, its other keys kept in their
// order. Steps that are not a list of objects are kept as they came.
func stepsWithError(raw json.RawMessage) json.RawMessage {
	var steps []json.RawMessage
	if json.Unmarshal(raw, &steps) != nil {
		return raw
	}
	for i, step := range steps {
		var keys map[string]json.RawMessage
		if json.Unmarshal(step, &keys) != nil || keys == nil {
			return raw
		}
		if _, ok := keys["error"]; ok {
			continue
		}
		body := bytes.TrimSuffix(bytes.TrimSpace(step), []byte("}"))
		if len(keys) > 0 {
			body = append(body, ',')
		}
		steps[i] = append(body, `"error":null}`...)
	}
	b, err := json.Marshal(steps)
	if err != nil {
		return raw
	}
	return b
}
