package farmtest

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// Call calls a tool and fails the test on a protocol error (tool errors are results). It also
// fails the test when the result breaks the contract every result keeps (see CheckResult):
// structured content mirrored as text, and valid against the output schema the server declares
// for the tool in tools/list.
func Call(t testing.TB, c *client.Client, tool string, args map[string]any) *mcpgo.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// List the tools before the first call, not after it: a test timing a lease must not lose
	// time between a call's answer and its next step. A failure here is retried after the call.
	tc := catalogOf(t, c)
	_ = tc.load(ctx, c, tool)
	req := mcpgo.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = tool, args
	res, err := c.CallTool(ctx, req)
	if err != nil {
		t.Fatalf("%s %v: protocol error: %v", tool, args, err)
	}
	if err := tc.check(ctx, c, tool, res); err != nil {
		t.Fatalf("%s %v: %v", tool, args, err)
	}
	return res
}

// MustCall calls a tool and fails the test if the result is an error.
func MustCall(t testing.TB, c *client.Client, tool string, args map[string]any) *mcpgo.CallToolResult {
	t.Helper()
	res := Call(t, c, tool, args)
	if res.IsError {
		t.Fatalf("%s %v: %s", tool, args, Text(res))
	}
	return res
}

// Text joins a result's text content.
func Text(res *mcpgo.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if t, ok := c.(mcpgo.TextContent); ok {
			parts = append(parts, t.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// Structured decodes a result's structured content into v. It fails the test when there is
// none, or when it is not mirrored as text (Call has checked the schema).
func Structured(t testing.TB, res *mcpgo.CallToolResult, v any) {
	t.Helper()
	if res.StructuredContent == nil {
		t.Fatalf("the result has no structured content: %s", Text(res))
	}
	if err := checkMirror(res); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("structured content %s: %v", b, err)
	}
}

// Image returns a result's image content (base64 data and MIME type).
func Image(res *mcpgo.CallToolResult) (data, mime string) {
	for _, c := range res.Content {
		if img, ok := c.(mcpgo.ImageContent); ok {
			return img.Data, img.MIMEType
		}
	}
	return "", ""
}
