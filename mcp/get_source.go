package mcp

import (
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/corral-farm/corral/nodes"
)

func toolGetSource() toolDef {
	return newDeviceTool[nodes.SourceArgs, nodes.SourceResult]("get_source",
		"Get the UI hierarchy of the current screen as XML (element bounds in pixels). It always shows what is on screen; packageName is echoed back.", readOnly(),
		packageNameParam(false))
}

// packageNameParam is the packageName argument of the app tools (HttpRunner seed).
func packageNameParam(required bool) mcpgo.ToolOption {
	opts := []mcpgo.PropertyOption{mcpgo.MaxLength(255), mcpgo.Pattern(`^[A-Za-z0-9._-]+$`),
		mcpgo.Description("App package name (Android) or bundle id (iOS), e.g. com.android.settings")}
	if required {
		opts = append(opts, mcpgo.Required())
	}
	return mcpgo.WithString("packageName", opts...)
}
