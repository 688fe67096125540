package mcp

import (
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/corral-farm/corral/nodes"
)

func toolAppInstall() toolDef {
	return newDeviceTool[nodes.AppInstallArgs, nodes.AppInstallResult]("app_install",
		"Install an app (APK on Android, IPA on iOS), replacing an installed version. appUrl is an http(s) URL, which "+
			"the device's node downloads (at most 1 GiB), or an absolute path of a file on that node. Reports progress; "+
			"abort_task stops it.", downloads(),
		mcpgo.WithString("appUrl", mcpgo.Required(), mcpgo.MinLength(1), mcpgo.MaxLength(4096),
			mcpgo.Description("APK/IPA file: an http(s) URL, or an absolute path on the node that hosts the device")),
	)
}

// downloads marks a tool that changes the device and may reach beyond the farm (a URL).
func downloads() mcpgo.ToolOption {
	return mcpgo.WithToolAnnotation(mcpgo.ToolAnnotation{
		ReadOnlyHint: ptr(false), DestructiveHint: ptr(false), IdempotentHint: ptr(true), OpenWorldHint: ptr(true),
	})
}
