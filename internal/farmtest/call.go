package farmtest

import (
	"context"
	"encoding/json"
	"fmt"
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
	res, err := TryCall(t, c, tool, args)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TryCall is Call for a goroutine other than the test's, where the test must not be failed
// (t.Fatal there ends only that goroutine): it returns what Call would fail the test with.
func TryCall(t testing.TB, c *client.Client, tool string, args map[string]any) (*mcpgo.CallToolResult, error) {
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
		return nil, fmt.Errorf("%s %v: protocol error: %w", tool, args, err)
	}
	if err := tc.check(ctx, c, tool, res); err != nil {
		return nil, fmt.Errorf("%s %v: %w", tool, args, err)
	}
	return res, nil
}

// Answer is the end of a call made on another goroutine: its result, or what went wrong.
type Answer struct {
	Result *mcpgo.CallToolResult
	Err    error
}

// Get returns the result, failing the test if the call went wrong. Call it on the test's
// goroutine.
func (a Answer) Get(t testing.TB) *mcpgo.CallToolResult {
	t.Helper()
	if a.Err != nil {
		t.Fatal(a.Err)
	}
	return a.Result
}

// Go calls a tool on its own goroutine, for a test that acts while the call runs; the answer
// arrives on the channel.
func Go(t testing.TB, c *client.Client, tool string, args map[string]any) <-chan Answer {
	catalogOf(t, c) // registered from the test's goroutine
	out := make(chan Answer, 1)
	go func() {
		res, err := TryCall(t, c, tool, args)
		out <- Answer{res, err}
	}()
	return out
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
	if err := Decode(res, v); err != nil {
		t.Fatal(err)
	}
}

// Decode is Structured for a goroutine other than the test's: it returns the error.
func Decode(res *mcpgo.CallToolResult, v any) error {
	if res.StructuredContent == nil {
		return fmt.Errorf("the result has no structured content: %s", Text(res))
	}
	if err := checkMirror(res); err != nil {
		return err
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("structured content %s: %w", b, err)
	}
	return nil
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
