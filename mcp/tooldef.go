package mcp

import (
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"
)

// toolDef is one tool of the catalog: its MCP definition and the handler bound to a gateway.
type toolDef struct {
	tool    mcpgo.Tool
	handler func(g *Gateway) mcpserver.ToolHandlerFunc
	// device marks a tool that runs on a device: its result is bounded by the node (images,
	// get_source's 512 KB), not by the size of the farm, and is not held to MaxResultBytes.
	device bool
	// serialFilter marks a gateway tool that reads serial, HttpRunner's device of every call,
	// as a filter without listing it (tools/list is paid for in every agent's context):
	// withGeneralArgs passes it on to the handler.
	serialFilter bool
}

// Annotation helpers, so every tool states its hints in one short line. Hints equal to the
// spec's defaults (readOnly false, idempotent false) are left out: tools/list repeats them for
// every tool, and agents pay for its size. destructiveHint is always explicit, and
// openWorldHint (default true) is always false: a device farm is a closed world.
func readOnly() mcpgo.ToolOption {
	return mcpgo.WithToolAnnotation(mcpgo.ToolAnnotation{ReadOnlyHint: ptr(true), DestructiveHint: ptr(false), OpenWorldHint: ptr(false)})
}

// action marks a tool that changes the device's screen or state without destroying data.
func action(idempotent bool) mcpgo.ToolOption {
	return mcpgo.WithToolAnnotation(mcpgo.ToolAnnotation{DestructiveHint: ptr(false), IdempotentHint: trueOrNil(idempotent), OpenWorldHint: ptr(false)})
}

// destructive marks a tool that loses something (data, an app's state, someone's lease).
func destructive(idempotent bool) mcpgo.ToolOption {
	return mcpgo.WithToolAnnotation(mcpgo.ToolAnnotation{DestructiveHint: ptr(true), IdempotentHint: trueOrNil(idempotent), OpenWorldHint: ptr(false)})
}

func trueOrNil(b bool) *bool {
	if b {
		return ptr(true)
	}
	return nil
}

func ptr[T any](v T) *T { return &v }
