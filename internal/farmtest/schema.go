package farmtest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/mark3labs/mcp-go/client"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// CheckResult checks what every tool result must satisfy, whoever the client:
//   - structured content is mirrored as text: one text item holds the same JSON value (the
//     spec's advice for clients that do not read structuredContent, and Corral's rule);
//   - a successful result of a tool that declares an output schema carries structured
//     content, and that content validates against the schema.
//
// Error results need not match the output schema (the spec says so; mcp-go skips them too).
func CheckResult(tool mcpgo.Tool, res *mcpgo.CallToolResult) error {
	if err := checkMirror(res); err != nil || res.IsError {
		return err
	}
	schema, err := outputSchema(tool)
	if err != nil {
		return err
	}
	return checkStructured(schema, res)
}

// checkStructured checks a successful result against a tool's compiled output schema (nil:
// the tool declares none).
func checkStructured(schema *jsonschema.Resolved, res *mcpgo.CallToolResult) error {
	if schema == nil {
		return nil
	}
	if res.StructuredContent == nil {
		return errors.New("the tool declares an output schema but the result has no structuredContent")
	}
	v, err := wireValue(res.StructuredContent)
	if err != nil {
		return fmt.Errorf("structured content: %w", err)
	}
	if err := schema.Validate(v); err != nil {
		b, _ := json.Marshal(v)
		return fmt.Errorf("structured content does not match the output schema: %w\n%s", err, b)
	}
	return nil
}

// checkMirror checks that structured content, if any, also comes as a text item with the same
// JSON value.
func checkMirror(res *mcpgo.CallToolResult) error {
	if res.StructuredContent == nil {
		return nil
	}
	want, err := wireValue(res.StructuredContent)
	if err != nil {
		return fmt.Errorf("structured content: %w", err)
	}
	for _, c := range res.Content {
		tc, ok := c.(mcpgo.TextContent)
		if !ok {
			continue
		}
		var got any
		if json.Unmarshal([]byte(tc.Text), &got) == nil && reflect.DeepEqual(got, want) {
			return nil
		}
	}
	b, _ := json.Marshal(want)
	return fmt.Errorf("structured content %s is not mirrored in a text content item (texts: %q)", b, Text(res))
}

// outputSchema compiles a tool's declared output schema; nil when it declares none.
func outputSchema(tool mcpgo.Tool) (*jsonschema.Resolved, error) {
	raw := []byte(tool.RawOutputSchema) // set on the server side (Corral freezes its schemas)
	if len(raw) == 0 {
		if tool.OutputSchema.Type == "" {
			return nil, nil
		}
		b, err := json.Marshal(tool.OutputSchema)
		if err != nil {
			return nil, fmt.Errorf("output schema of %s: %w", tool.Name, err)
		}
		raw = b
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("output schema of %s is not a JSON schema: %w", tool.Name, err)
	}
	// Stricter than the server, which skips schemas it cannot compile: a broken schema fails here.
	r, err := s.Resolve(nil)
	if err != nil {
		return nil, fmt.Errorf("output schema of %s does not resolve: %w", tool.Name, err)
	}
	return r, nil
}

// wireValue is v as it travels: numbers as float64, objects as maps (an in-process result may
// hold a struct or json.RawMessage).
func wireValue(v any) (any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// toolCatalog is what a client's server declares in tools/list, with each tool's output schema
// compiled on first use.
type toolCatalog struct {
	mu      sync.Mutex
	tools   map[string]mcpgo.Tool // nil until listed
	schemas map[string]*jsonschema.Resolved
}

// catalogs holds one toolCatalog per client. Call is given a bare *client.Client, so the cache
// can only be keyed by it; the entry goes when the test that made it ends.
var catalogs sync.Map // *client.Client → *toolCatalog

func catalogOf(t testing.TB, c *client.Client) *toolCatalog {
	v, loaded := catalogs.LoadOrStore(c, &toolCatalog{})
	if !loaded {
		t.Cleanup(func() { catalogs.Delete(c) })
	}
	return v.(*toolCatalog)
}

// load lists the tools once (again when name is not among them: the gateway may have been
// restarted with another catalog).
func (tc *toolCatalog) load(ctx context.Context, c *client.Client, name string) error {
	tc.mu.Lock()
	defer tc.mu.Unlock()
	if _, ok := tc.tools[name]; ok {
		return nil
	}
	tools := map[string]mcpgo.Tool{}
	req := mcpgo.ListToolsRequest{}
	for {
		page, err := c.ListTools(ctx, req)
		if err != nil {
			return fmt.Errorf("tools/list: %w", err)
		}
		for _, tl := range page.Tools {
			tools[tl.Name] = tl
		}
		if page.NextCursor == "" {
			break
		}
		req.Params.Cursor = page.NextCursor
	}
	tc.tools, tc.schemas = tools, map[string]*jsonschema.Resolved{}
	return nil
}

// check runs CheckResult with the tool as this client's server declares it.
func (tc *toolCatalog) check(ctx context.Context, c *client.Client, name string, res *mcpgo.CallToolResult) error {
	if res.IsError { // only the mirror to check: no need for the catalog
		return checkMirror(res)
	}
	if err := tc.load(ctx, c, name); err != nil {
		return err
	}
	tc.mu.Lock()
	tool, ok := tc.tools[name]
	schema, compiled := tc.schemas[name]
	tc.mu.Unlock()
	if !ok {
		return fmt.Errorf("the call succeeded but tools/list does not declare %s", name)
	}
	if err := checkMirror(res); err != nil {
		return err
	}
	if !compiled { // compiled outside the lock: the same schema twice at worst
		var err error
		if schema, err = outputSchema(tool); err != nil {
			return err
		}
		tc.mu.Lock()
		tc.schemas[name] = schema
		tc.mu.Unlock()
	}
	return checkStructured(schema, res)
}
