package mcp

import (
	"context"

	"github.com/corral-farm/corral/mcp/console"
)

// ConsoleCall has g's console call tool with args for an anonymous viewer (a gateway without a
// policy), as a console action does, and returns its answer.
func ConsoleCall(ctx context.Context, g *Gateway, tool string, args map[string]any) console.Answer {
	return consoleActions{g}.Call(ctx, console.Viewer{Name: "anonymous"}, tool, args)
}
