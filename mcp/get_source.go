package mcp

import (
	"github.com/corral-farm/corral/nodes/tools"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

func toolGetSource() toolDef {
	return newDeviceTool[tools.SourceArgs, tools.SourceResult]("get_source",
		"Get the UI hierarchy of the screen as XML (bounds in pixels).", readOnly(),
		packageNameParam(false))
}

// packageNameParam is the packageName argument of the app tools (HttpRunner seed).
func packageNameParam(required bool) mcpgo.ToolOption {
	opts := []mcpgo.PropertyOption{mcpgo.MaxLength(255), mcpgo.Pattern(`^[A-Za-z0-9._-]+$`),
		mcpgo.Description("Package or bundle id, e.g. com.android.settings")}
	if required {
		opts = append(opts, mcpgo.Required())
	}
	return mcpgo.WithString("packageName", opts...)
}
