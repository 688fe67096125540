package mcp

import (
	"bytes"
	"encoding/json"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// modernHeaders are the headers the protocol's revision without sessions (2026-07-28 on) wants
// on a POST of msg over HTTP, as msg's body says (SEP-2243): the version its _meta names, its
// method and the name of the tool or prompt it calls. A stdio client puts those in the body
// only: without them the gateway refuses the request (400), and mcp-go's client fell back to
// the initialize handshake through the bridge. nil for a message of an earlier revision (its
// session's version goes in the header), a response or a batch. Mcp-Param-* headers, which
// a tool's x-mcp-header annotations ask for, are not made: corral's tools have none.
func modernHeaders(msg []byte) map[string]string {
	if len(msg) == 0 || msg[0] != '{' || !bytes.Contains(msg, []byte(mcpgo.MetaKeyProtocolVersion)) {
		return nil
	}
	var m struct {
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	if json.Unmarshal(msg, &m) != nil || m.Method == "" || len(m.Params) == 0 {
		return nil
	}
	var p struct {
		Meta *mcpgo.Meta `json:"_meta"`
	}
	if json.Unmarshal(m.Params, &p) != nil {
		return nil
	}
	v := p.Meta.ProtocolVersion()
	if !mcpgo.IsModernProtocol(v) {
		return nil
	}
	h := mcpgo.StandardHeaders(v, mcpgo.MCPMethod(m.Method), m.Params)
	h[mcpgo.HeaderProtocolVersion] = v
	return h
}
