package steps

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/corral-farm/corral/internal/typo"
	"github.com/corral-farm/corral/nodes/tools"
)

// Catalog is the tools a gateway serves (its tools/list), each with its input schema resolved,
// so that every step is checked before anything runs.
type Catalog struct {
	names []string // in tools/list order
	tools map[string]*catalogTool
	known map[string]bool // the tools of a gateway of this corral's version (Known)
	token bool            // the session sends a bearer token (TokenSent)
}

type catalogTool struct {
	schema   *jsonschema.Schema
	resolved *jsonschema.Resolved
	args     []string // argument names, sorted
}

// ToolLister lists a gateway's tools: an MCP client session.
type ToolLister interface {
	ListTools(ctx context.Context, req mcpgo.ListToolsRequest) (*mcpgo.ListToolsResult, error)
}

// maxPages bounds tools/list paging against a server that never stops handing out cursors.
const maxPages = 100

// FetchCatalog reads a gateway's whole tools/list, page by page.
func FetchCatalog(ctx context.Context, c ToolLister) (*Catalog, error) {
	var all []mcpgo.Tool
	req := mcpgo.ListToolsRequest{}
	for range maxPages {
		res, err := c.ListTools(ctx, req)
		if err != nil {
			return nil, fmt.Errorf("tools/list: %w (is the gateway up, and its URL right?)", err)
		}
		all = append(all, res.Tools...)
		if res.NextCursor == "" {
			break
		}
		req.Params.Cursor = res.NextCursor
	}
	return NewCatalog(all)
}

// NewCatalog builds a catalog from tools as tools/list gives them.
func NewCatalog(tools []mcpgo.Tool) (*Catalog, error) {
	c := &Catalog{tools: make(map[string]*catalogTool, len(tools))}
	for _, t := range tools {
		raw := t.RawInputSchema
		if raw == nil {
			var err error
			if raw, err = json.Marshal(t.InputSchema); err != nil {
				return nil, fmt.Errorf("tool %s: input schema: %w", t.Name, err)
			}
		}
		var s jsonschema.Schema
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, fmt.Errorf("tool %s: input schema is not a JSON schema: %w", t.Name, err)
		}
		r, err := s.Resolve(nil)
		if err != nil {
			return nil, fmt.Errorf("tool %s: input schema: %w", t.Name, err)
		}
		c.names = append(c.names, t.Name)
		c.tools[t.Name] = &catalogTool{schema: &s, resolved: r, args: slices.Sorted(maps.Keys(s.Properties))}
	}
	return c, nil
}

// Names returns the tools in tools/list order.
func (c *Catalog) Names() []string { return slices.Clone(c.names) }

// Has reports whether the gateway serves tool.
func (c *Catalog) Has(tool string) bool { return c.tools[tool] != nil }

// Takes reports whether tool takes the argument arg.
func (c *Catalog) Takes(tool, arg string) bool {
	t := c.tools[tool]
	return t != nil && t.schema.Properties[arg] != nil
}

// needsDevice reports whether tool runs on a device: the device tools all take timeout_ms (the
// common arguments of mcp/devicetool.go); the gateway's own tools do not.
func (c *Catalog) needsDevice(tool string) bool {
	return c.Takes(tool, "serial") && c.Takes(tool, "timeout_ms")
}

// Check reports whether args fit tool: the gateway serves it, it takes every argument given, and
// its input schema holds. Errors say what to change.
func (c *Catalog) Check(tool string, args map[string]any) error {
	t := c.tools[tool]
	if t == nil {
		return c.unknown(tool)
	}
	v, err := jsonValue(args)
	if err != nil {
		return err
	}
	inst, _ := v.(map[string]any)
	if inst == nil {
		inst = map[string]any{}
	}
	inst = enumSpelled(tool, inst) // "home" is HOME to press_button, and so to its schema's enum
	for _, k := range slices.Sorted(maps.Keys(inst)) {
		// The gateway decodes strictly: an unknown argument is refused. HttpRunner's general
		// options are taken by the tools that leave them out of their schemas.
		if t.schema.Properties[k] == nil && !tools.TakesUnlisted(tool, k) {
			return fmt.Errorf("unknown argument %q; %s takes: %s", k, tool, strings.Join(t.args, ", "))
		}
	}
	if err := t.resolved.Validate(inst); err != nil {
		return t.explain(tool, inst, err)
	}
	return nil
}

// Known gives the names of the tools a gateway of this corral's version has, all of them: a
// step's tool among them that this gateway did not list is kept from the caller, not misspelt.
func (c *Catalog) Known(names []string) {
	c.known = make(map[string]bool, len(names))
	for _, n := range names {
		c.known[n] = true
	}
}

// TokenSent says the session sends a bearer token: a gateway's policy may then list only some of
// its tools to it, even a list that is a profile's.
func (c *Catalog) TokenSent() { c.token = true }

// unknown explains a tool the gateway does not serve, quoted at most typo.MaxShown bytes long:
// with the name it most likely meant (another case of it, else the nearest), or, for a
// tool corral has (Known), why a gateway leaves one out: its --tools profile (named when its
// list is one's, and the token's policy too when a token is sent) or the token's auth policy.
func (c *Catalog) unknown(tool string) error {
	if c.known[tool] {
		with := strings.Join(append([]string{"--tools all (the default)"}, profilesWith(tool)...), " or ")
		if p := servedProfile(c.names); p != "" && c.token {
			return fmt.Errorf("the gateway does not list %s: it lists the %d tools of the %s profile, which has no %s: either it "+
				"serves that profile (--tools %s; a gateway started with %s serves %s), or its auth policy gives this token "+
				"only those (a principal with tools: [%s]: ask its operator for a token whose policy has %s)",
				tool, len(c.names), p, tool, p, with, tool, p, tool)
		}
		if p := servedProfile(c.names); p != "" {
			return fmt.Errorf("the gateway does not list %s: it serves the %s profile (--tools %s, the %d tools it lists), "+
				"which has no %s; a gateway started with %s serves it", tool, p, p, len(c.names), tool, with)
		}
		return fmt.Errorf("the gateway does not list %s: either its --tools profile leaves it out (%s has it), or its "+
			"auth policy keeps it from this token (a gateway with a policy lists only the tools a token may call: ask its "+
			"operator for a token whose policy has %s); tools/list shows the %d tools it lists for this token",
			tool, with, tool, len(c.names))
	}
	hint := ""
	if best, ok := typo.Nearest(tool, c.names); ok { // TAP_XY: tap_xy, as the gateway suggests it
		hint = fmt.Sprintf(" (did you mean %q?)", best)
	}
	return fmt.Errorf("the gateway has no tool %q%s; docs/scripted-runs.md lists the methods, tools/list the gateway's %d tools",
		typo.Shown(tool), hint, len(c.names))
}

// explain turns a schema violation into a sentence about the argument at fault; the validator's
// own words are the fallback.
func (t *catalogTool) explain(tool string, args map[string]any, err error) error {
	for _, r := range t.schema.Required {
		if _, ok := args[r]; !ok {
			return fmt.Errorf("%s is required: %s takes %s", r, tool, describeArgs(t.schema))
		}
	}
	for _, k := range slices.Sorted(maps.Keys(args)) {
		if e := checkValue(k, t.schema.Properties[k], args[k]); e != nil {
			return e
		}
	}
	return fmt.Errorf("%s", cleanSchemaError(err.Error()))
}

// describeArgs lists a tool's required arguments, then the optional ones in brackets.
func describeArgs(s *jsonschema.Schema) string {
	var req, opt []string
	for _, k := range slices.Sorted(maps.Keys(s.Properties)) {
		if slices.Contains(s.Required, k) {
			req = append(req, k)
		} else {
			opt = append(opt, k)
		}
	}
	out := strings.Join(req, ", ")
	if len(opt) > 0 {
		out += " [" + strings.Join(opt, ", ") + "]"
	}
	return out
}

// checkValue explains why v does not fit the property schema s, or returns nil if it does as
// far as the keywords the gateway uses go (type, range, enum, length, pattern, items).
func checkValue(name string, s *jsonschema.Schema, v any) error {
	if s == nil {
		return nil
	}
	types := s.Types
	if s.Type != "" {
		types = []string{s.Type}
	}
	if len(types) > 0 && !slices.ContainsFunc(types, func(t string) bool { return hasType(t, v) }) {
		return fmt.Errorf("%s must be %s, got %s", name, typeWords(types), describe(v))
	}
	if len(s.Enum) > 0 && !slices.ContainsFunc(s.Enum, func(e any) bool { return jsonSame(e, v) }) {
		var opts []string
		for _, e := range s.Enum {
			opts = append(opts, fmt.Sprint(e))
		}
		return fmt.Errorf("%s must be one of %s; got %s", name, strings.Join(opts, ", "), show(v))
	}
	switch t := v.(type) {
	case float64:
		lo, hi := s.Minimum, s.Maximum
		switch {
		case lo != nil && hi != nil && (t < *lo || t > *hi):
			return fmt.Errorf("%s must be between %g and %g, got %g", name, *lo, *hi, t)
		case lo != nil && t < *lo:
			return fmt.Errorf("%s must be at least %g, got %g", name, *lo, t)
		case hi != nil && t > *hi:
			return fmt.Errorf("%s must be at most %g, got %g", name, *hi, t)
		}
	case string:
		n := len([]rune(t))
		if s.MinLength != nil && n < *s.MinLength {
			if *s.MinLength == 1 {
				return fmt.Errorf("%s must not be empty", name)
			}
			return fmt.Errorf("%s must be at least %d characters long, got %s", name, *s.MinLength, show(t))
		}
		if s.MaxLength != nil && n > *s.MaxLength {
			return fmt.Errorf("%s must be at most %d characters long, got %d", name, *s.MaxLength, n)
		}
		if s.Pattern != "" {
			if re, err := regexp.Compile(s.Pattern); err == nil && !re.MatchString(t) {
				return fmt.Errorf("%s %s does not match %s", name, show(t), s.Pattern)
			}
		}
	case []any:
		switch {
		case s.MinItems != nil && s.MaxItems != nil && *s.MinItems == *s.MaxItems && len(t) != *s.MinItems:
			return fmt.Errorf("%s must have %d items, got %d", name, *s.MinItems, len(t))
		case s.MinItems != nil && len(t) < *s.MinItems:
			return fmt.Errorf("%s must have at least %d items, got %d", name, *s.MinItems, len(t))
		case s.MaxItems != nil && len(t) > *s.MaxItems:
			return fmt.Errorf("%s must have at most %d items, got %d", name, *s.MaxItems, len(t))
		}
		for i, e := range t {
			if err := checkValue(fmt.Sprintf("%s[%d]", name, i), s.Items, e); err != nil {
				return err
			}
		}
	case map[string]any:
		for _, r := range s.Required {
			if _, ok := t[r]; !ok {
				return fmt.Errorf("%s.%s is required", name, r)
			}
		}
		for _, k := range slices.Sorted(maps.Keys(t)) {
			if err := checkValue(name+"."+k, s.Properties[k], t[k]); err != nil {
				return err
			}
		}
	}
	return nil
}

// hasType reports whether the JSON value v is of the JSON schema type t.
func hasType(t string, v any) bool {
	switch x := v.(type) {
	case nil:
		return t == "null"
	case bool:
		return t == "boolean"
	case string:
		return t == "string"
	case float64:
		return t == "number" || (t == "integer" && x == math.Trunc(x) && !math.IsInf(x, 0))
	case []any:
		return t == "array"
	case map[string]any:
		return t == "object"
	}
	return false
}

func typeWords(types []string) string {
	words := map[string]string{"number": "a number", "integer": "a whole number", "string": "a string",
		"boolean": "true or false", "array": "a list", "object": "an object", "null": "null"}
	var out []string
	for _, t := range types {
		out = append(out, words[t])
	}
	return strings.Join(out, " or ")
}

func jsonSame(a, b any) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && string(x) == string(y)
}

// schemaPath matches the validator's "validating /properties/x/items: " prefixes.
var schemaPath = regexp.MustCompile(`validating (/[^:]*): `)

// cleanSchemaError rewrites the validator's message with the argument's path in front
// ("bbox[]: type: ..."), without its chain of prefixes.
func cleanSchemaError(msg string) string {
	msg = strings.TrimPrefix(msg, "validating root: ")
	m := schemaPath.FindAllStringSubmatchIndex(msg, -1)
	if len(m) == 0 {
		return msg
	}
	last := m[len(m)-1]
	path := msg[last[2]:last[3]]
	path = strings.ReplaceAll(path, "/items", "[]")
	path = strings.ReplaceAll(path, "/properties/", ".")
	return strings.TrimPrefix(path, ".") + ": " + msg[last[1]:]
}
