package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/corral-farm/corral/nodes/tools"
)

// HttpRunner's clients send platform and serial with every call, and HttpRunner adds its six
// general options to the arguments of any tool a step calls (nodes/tools/seedopts.go), the
// gateway's own tools too. Those decode strictly (decodeArgs), so withGeneralArgs takes these
// arguments before a tool's handler does: checked as the device tools check them (types,
// bounds, platform against the device serial names), then left out of what the handler decodes
// unless the tool declares them itself. The six mean nothing to a gateway tool (nothing there is
// found, retried or touched): taken and ignored, unlisted, as on the device tools that only
// look. The tools of the httprunner profile list platform and serial, as every device tool
// does; the others take them unlisted (tools/list is paid for in every agent's context), and
// those that read of a device (list_leases, get_latest_task: serialFilter) filter by serial.

// generalOptions are HttpRunner's six general options (its 通用参数 → 行为参数), as
// tools.SeedOptions takes them.
var generalOptions = []string{"pre_mark_operation", "anti_risk", "ignore_NotFoundError", "regex", "max_retry_times", "index"}

// isGeneralOption reports whether key is one of generalOptions, matched as encoding/json
// matches a key to a field (the device tools decode them so): exactly, else without case.
func isGeneralOption(key string) bool {
	return slices.ContainsFunc(generalOptions, func(o string) bool { return strings.EqualFold(o, key) })
}

// withGeneralArgs makes d, a gateway tool, take platform, serial and the six general options.
// listed adds platform and serial to its input schema where it lacks them.
func withGeneralArgs(d toolDef, listed bool) toolDef {
	props := d.tool.InputSchema.Properties
	_, ownPlatform := props[argPlatform]
	_, ownSerial := props[argSerial]
	ownSerial = ownSerial || d.serialFilter
	if listed {
		// The handler's copy of the tool shares this map: its unknown-argument answer
		// (argError) lists them too.
		for _, name := range []string{argPlatform, argSerial} {
			if _, ok := props[name]; !ok {
				props[name] = map[string]any{"type": "string"} // as deviceParams shows them
			}
		}
	}
	tool, handler := d.tool, d.handler
	d.handler = func(g *Gateway) mcpserver.ToolHandlerFunc {
		h := handler(g)
		return func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			args, ok := req.Params.Arguments.(map[string]any)
			if !ok {
				return h(ctx, req) // no arguments, or not an object: the handler says so
			}
			own, err := g.takeGeneralArgs(ctx, tool, args, ownPlatform, ownSerial)
			if err != nil {
				return g.refuseErr(ctx, err), nil
			}
			req.Params.Arguments = own
			return h(ctx, req)
		}
	}
	return d
}

// takeGeneralArgs checks the general arguments of args and returns the arguments the tool's
// handler decodes: all but the six general options, and platform and serial where the tool
// does not declare them (ownPlatform, ownSerial). A tool that declares platform checks it
// itself.
func (g *Gateway) takeGeneralArgs(ctx context.Context, tool mcpgo.Tool, args map[string]any, ownPlatform, ownSerial bool) (map[string]any, error) {
	own := make(map[string]any, len(args))
	options := map[string]any{}
	var platform, serial string
	for k, v := range args {
		switch {
		case k == argPlatform || k == argSerial:
			s, ok := v.(string)
			if !ok && v != nil {
				return nil, fmt.Errorf("%s must be a string, got %s", k, jsonType(v))
			}
			if len(s) > maxSerialLen {
				return nil, fmt.Errorf("%s is %d bytes long; at most %d", k, len(s), maxSerialLen)
			}
			if k == argPlatform {
				platform = strings.ToLower(s)
				if ownPlatform {
					own[k] = v
				}
			} else {
				serial = s
				if ownSerial {
					own[k] = v
				}
			}
		case isGeneralOption(k):
			options[k] = v
		default:
			own[k] = v
		}
	}
	if len(options) > 0 {
		raw, err := json.Marshal(options)
		if err != nil {
			return nil, fmt.Errorf("arguments cannot be encoded: %w", err)
		}
		var taken tools.SeedOptions // checked as the device tools check them, then ignored
		if err := tools.DecodeArgs(raw, &taken); err != nil {
			return nil, argError(tool, err)
		}
	}
	if ownPlatform || platform == "" {
		return own, nil
	}
	if err := g.checkPlatform(platform); err != nil {
		return nil, err
	}
	// A device the caller may not see is left to the tool, which refuses it in its own words
	// (its platform is not told here).
	if d, ok := g.farm.Device(serial); ok && serial != "" && g.mayUse(ctx, d) && d.Platform != platform {
		return nil, fmt.Errorf("device %s is %s, not %s: pass platform %q or leave platform out", serial, d.Platform, platform, d.Platform)
	}
	return own, nil
}
