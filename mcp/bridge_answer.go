package mcp

import (
	"bytes"
	"encoding/json"
)

// isAnswerTo says whether body, a gateway's answer with an HTTP status of 300 or more, is the
// JSON-RPC answer to msg, one request: "jsonrpc", a result or an error, and msg's id. A
// refusal of the request itself (401 with id null, a plain-text 404 from a wrong URL) is not.
func isAnswerTo(body, msg []byte) bool {
	var a struct {
		JSONRPC string `json:"jsonrpc"`
	}
	id, ok := answeredID(body)
	if !ok || json.Unmarshal(body, &a) != nil || a.JSONRPC == "" {
		return false
	}
	want, ok := requestID(msg)
	return ok && !bytes.Equal(want, []byte("null")) && compactID(want) == id
}
