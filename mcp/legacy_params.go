package mcp

import mcpgo "github.com/mark3labs/mcp-go/mcp"

// packageNameParam is the packageName argument of the app tools (HttpRunner seed).
func packageNameParam(required bool) mcpgo.ToolOption {
	opts := []mcpgo.PropertyOption{mcpgo.MaxLength(255), mcpgo.Pattern(`^[A-Za-z0-9._-]+$`),
		mcpgo.Description("Package or bundle id, e.g. com.android.settings")}
	if required {
		opts = append(opts, mcpgo.Required())
	}
	return mcpgo.WithString("packageName", opts...)
}

// maxWidthParam is the optional max_width of the tools that answer with an image.
func maxWidthParam() mcpgo.ToolOption {
	return mcpgo.WithInteger("max_width", mcpgo.Min(0), mcpgo.Description("Scale down to this width in px"))
}
