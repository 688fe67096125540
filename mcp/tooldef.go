package mcp

import (
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"
)

// toolDef is one tool of the catalog: its MCP definition and the handler bound to a gateway.
type toolDef struct {
	tool    mcpgo.Tool
	handler func(g *Gateway) mcpserver.ToolHandlerFunc
}

// Annotation helpers, so every tool states its hints in one short line.
func readOnly() mcpgo.ToolOption {
	return mcpgo.WithToolAnnotation(mcpgo.ToolAnnotation{
		ReadOnlyHint: ptr(true), DestructiveHint: ptr(false), IdempotentHint: ptr(true), OpenWorldHint: ptr(false),
	})
}

// action marks a tool that changes the device's screen or state without destroying data.
func action(idempotent bool) mcpgo.ToolOption {
	return mcpgo.WithToolAnnotation(mcpgo.ToolAnnotation{
		ReadOnlyHint: ptr(false), DestructiveHint: ptr(false), IdempotentHint: ptr(idempotent), OpenWorldHint: ptr(false),
	})
}

// destructive marks a tool that loses something (data, an app's state, someone's lease).
func destructive(idempotent bool) mcpgo.ToolOption {
	return mcpgo.WithToolAnnotation(mcpgo.ToolAnnotation{
		ReadOnlyHint: ptr(false), DestructiveHint: ptr(true), IdempotentHint: ptr(idempotent), OpenWorldHint: ptr(false),
	})
}

func ptr[T any](v T) *T { return &v }
