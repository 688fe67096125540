package mcp

import (
	"github.com/corral-farm/corral/nodes/tools"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

func toolAppInstall() toolDef {
	return newDeviceTool[tools.AppInstallArgs, tools.AppInstallResult]("app_install",
		"Install an app from an http(s) URL (≤ 1 GiB) or a path on the node. Reports progress.", downloads(),
		mcpgo.WithString("appUrl", mcpgo.Required(), mcpgo.MinLength(1), mcpgo.MaxLength(4096),
			mcpgo.Description("APK/IPA URL or path")),
	)
}

// downloads marks a tool that changes the device and may reach beyond the farm (a URL).
func downloads() mcpgo.ToolOption {
	return mcpgo.WithToolAnnotation(mcpgo.ToolAnnotation{DestructiveHint: ptr(false), IdempotentHint: ptr(true), OpenWorldHint: ptr(true)})
}
