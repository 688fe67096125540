package steps

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"gopkg.in/yaml.v3"
)

// Document is a parsed steps file.
type Document struct {
	Name     string // the run's name (JUnit's testsuite); Load defaults it to the file's base name
	Serial   string // device of the steps that name none; the run's --serial overrides it
	Platform string // platform of the steps that name none; the run's --platform overrides it
	Steps    []Step
}

// Step is one step as written: an HttpRunner action, or a tool call already in MCP's terms.
type Step struct {
	Index int    // 1-based position in the document
	Line  int    // line in a YAML file; 0 when unknown (JSON)
	Name  string // label for reports: name, else HttpRunner's identifier

	// Action is the HttpRunner form {method, params, options}; nil for a tool call.
	Action *MobileAction
	// Tool and Arguments are the tool-call form {tool, arguments} (options merged in).
	Tool      string
	Arguments map[string]any

	// IgnoreError lets the run go on when this step fails (options.ignore_error).
	IgnoreError bool
	// Expect is a text the device's screen must show once the step passed (options.expect);
	// "" for no check. ExpectTimeout bounds the wait for it (options.expect_timeout; 0: 5 s).
	Expect        string
	ExpectTimeout time.Duration

	// optErr is an option's fault (ignore_error, identifier, expect, expect_timeout): the step
	// is read all the same, so that the plan's check lists it with every other step's faults.
	optErr error
}

// Method is the step's method (HttpRunner form) or tool.
func (s Step) Method() string {
	if s.Action != nil {
		return s.Action.Method
	}
	return s.Tool
}

// Request is the tools/call request the step makes, before the run fills in serial, platform
// and lease.
func (s Step) Request() (mcpgo.CallToolRequest, error) {
	if s.optErr != nil {
		return mcpgo.CallToolRequest{}, s.optErr
	}
	if s.Action != nil {
		return Convert(*s.Action)
	}
	args := maps.Clone(s.Arguments)
	if args == nil {
		args = map[string]any{}
	}
	return newRequest(s.Tool, args), nil
}

// StepError is a problem with one step, found before anything ran.
type StepError struct {
	Index  int
	Line   int
	Method string // the step's method or tool, when known
	Field  string // the field at fault (params, options.duration, ...); "" for the whole step
	Err    error
}

func (e *StepError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "step %d", e.Index)
	var where []string
	if e.Line > 0 {
		where = append(where, fmt.Sprintf("line %d", e.Line))
	}
	if e.Method != "" {
		where = append(where, e.Method)
	}
	if len(where) > 0 {
		b.WriteString(" (" + strings.Join(where, ", ") + ")")
	}
	b.WriteString(": ")
	if e.Field != "" {
		b.WriteString(e.Field + ": ")
	}
	b.WriteString(e.Err.Error())
	return b.String()
}

func (e *StepError) Unwrap() error { return e.Err }

// stepError builds a StepError for s.
func stepError(s Step, field string, err error) *StepError {
	return &StepError{Index: s.Index, Line: s.Line, Method: s.Method(), Field: field, Err: err}
}

// Options that steer the run rather than the tool: they never become arguments.
const (
	optIgnoreError   = "ignore_error"
	optIdentifier    = "identifier"     // HttpRunner's label of an action
	optExpect        = "expect"         // a text the screen shows after the step
	optExpectTimeout = "expect_timeout" // seconds to wait for it
)

// inlineOptions are the options a step may also give next to method, as HttpRunner's
// MobileAction embeds its ActionOptions.
func inlineOptions() []string {
	return []string{optIgnoreError, optIdentifier, optExpect, optExpectTimeout, "duration", "press_duration", "anti_risk", "pre_mark_operation", "timeout",
		"timeout_ms", "wait_seconds", "lease", "serial", "platform"}
}

// Load reads and parses a steps file; the document's name defaults to the file's base name.
func Load(path string) (*Document, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read steps file: %w", err)
	}
	doc, err := Parse(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if doc.Name == "" {
		doc.Name = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	}
	return doc, nil
}

// Parse parses a steps document, YAML or JSON: a list of steps, or an object {name, serial,
// platform, steps}. A step is {method, params, options, name} (HttpRunner) or {tool, arguments,
// options, name}. Every step is checked; the error lists every step at fault. A fault in a
// step's ignore_error, identifier, expect or expect_timeout is left to Requests and NewPlan,
// which list it with the faults they find in the other steps: it does not hide them.
func Parse(data []byte) (*Document, error) {
	tree, lines, err := decode(data)
	if err != nil {
		return nil, err
	}
	doc := &Document{}
	var items []any
	switch t := tree.(type) {
	case []any:
		items = t
	case map[string]any:
		if _, ok := t["steps"]; !ok {
			return nil, errors.New("steps is missing: a steps document is a list of steps, or {name, serial, platform, steps}")
		}
		for _, k := range slices.Sorted(maps.Keys(t)) {
			switch v := t[k]; k {
			case "name", "serial", "platform":
				s, ok := v.(string)
				if !ok {
					return nil, fmt.Errorf("%s must be a string, got %s", k, describe(v))
				}
				switch k {
				case "name":
					doc.Name = s
				case "serial":
					doc.Serial = s
				default:
					doc.Platform = s
				}
			case "steps":
				list, ok := v.([]any)
				if !ok {
					return nil, fmt.Errorf("steps must be a list of steps, got %s", describe(v))
				}
				items = list
			default:
				return nil, fmt.Errorf("unknown field %q: a steps document has name, serial, platform and steps", k)
			}
		}
	case nil:
		return nil, errors.New("the steps file is empty: write a list of steps, or {name, serial, platform, steps}")
	default:
		return nil, fmt.Errorf("a steps file holds a list of steps, or an object {name, serial, platform, steps}; got %s", describe(tree))
	}
	if len(items) == 0 {
		return nil, errors.New("no steps to run: the list of steps is empty")
	}
	var errs []error
	for i, it := range items {
		line := 0
		if i < len(lines) {
			line = lines[i]
		}
		s, err := parseStep(i+1, line, it)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		doc.Steps = append(doc.Steps, s)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return doc, nil
}

// Requests converts every step offline (no gateway): the check `corral run --check-config` makes.
func (d *Document) Requests() ([]mcpgo.CallToolRequest, error) {
	var reqs []mcpgo.CallToolRequest
	var errs []error
	for _, s := range d.Steps {
		if s.optErr != nil {
			errs = append(errs, s.optErr)
			continue
		}
		req, err := s.Request()
		if err != nil {
			errs = append(errs, stepError(s, "", err))
			continue
		}
		reqs = append(reqs, req)
	}
	return reqs, errors.Join(errs...)
}

// parseStep reads one step; index is 1-based.
func parseStep(index, line int, v any) (Step, error) {
	s := Step{Index: index, Line: line}
	m, ok := v.(map[string]any)
	if !ok {
		return s, stepError(s, "", fmt.Errorf("a step is an object {method, params, options} or {tool, arguments}; got %s", describe(v)))
	}
	str := func(field string) (string, error) {
		v, ok := m[field]
		if !ok {
			return "", nil
		}
		if t, isStr := v.(string); isStr && strings.TrimSpace(t) != "" {
			return strings.TrimSpace(t), nil
		}
		return "", stepError(s, field, fmt.Errorf("must be a non-empty string, got %s", describe(v)))
	}
	method, err := str("method")
	if err != nil {
		return s, err
	}
	tool, err := str("tool")
	if err != nil {
		return s, err
	}
	switch {
	case method != "" && tool != "":
		return s, stepError(s, "", errors.New("give method (an HttpRunner action) or tool (a tool call), not both"))
	case method == "" && tool == "":
		return s, stepError(s, "", errors.New("method is missing: give method (an HttpRunner action, e.g. method: tap_xy) or tool (a tool call with arguments)"))
	}
	if method != "" {
		s.Action = &MobileAction{Method: method}
	} else {
		s.Tool = tool
	}
	if s.Name, err = str("name"); err != nil {
		return s, err
	}
	opts := map[string]any{}
	if v, ok := m["options"]; ok {
		o, isObj := v.(map[string]any)
		if !isObj {
			return s, stepError(s, "options", fmt.Errorf("must be an object, e.g. {duration: 0.5, ignore_error: true}; got %s", describe(v)))
		}
		maps.Copy(opts, o)
	}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		switch k {
		case "method", "tool", "name", "options":
		case "params":
			if s.Action == nil {
				return s, stepError(s, k, errors.New("a tool step takes arguments, not params (params go with method)"))
			}
			s.Action.Params = m[k]
		case "arguments":
			if s.Action != nil {
				return s, stepError(s, k, errors.New("an action takes params and options, not arguments (arguments go with tool)"))
			}
			a, isObj := m[k].(map[string]any)
			if !isObj {
				return s, stepError(s, k, fmt.Errorf("must be an object of the tool's arguments, got %s", describe(m[k])))
			}
			s.Arguments = a
		default:
			if !slices.Contains(inlineOptions(), k) {
				return s, stepError(s, "", fmt.Errorf("unknown field %q: a step has method, params, options and name (or tool, arguments, options and name); "+
					"options may also stand next to method: %s", k, strings.Join(inlineOptions(), ", ")))
			}
			if _, dup := opts[k]; dup {
				return s, stepError(s, "options."+k, errors.New("given both next to method and in options; keep one"))
			}
			opts[k] = m[k]
		}
	}
	var optErrs []error
	if v, ok := opts[optIgnoreError]; ok {
		b, isBool := v.(bool)
		if !isBool {
			optErrs = append(optErrs, stepError(s, "options."+optIgnoreError, fmt.Errorf("must be true or false, got %s", describe(v))))
		}
		s.IgnoreError = b
		delete(opts, optIgnoreError)
	}
	if v, ok := opts[optIdentifier]; ok {
		id, isStr := v.(string)
		if !isStr {
			optErrs = append(optErrs, stepError(s, "options."+optIdentifier, fmt.Errorf("must be a string, got %s", describe(v))))
		}
		if s.Name == "" {
			s.Name = id
		}
		delete(opts, optIdentifier)
	}
	if err := parseExpect(&s, opts); err != nil {
		optErrs = append(optErrs, err)
		delete(opts, optExpect)
		delete(opts, optExpectTimeout)
	}
	s.optErr = errors.Join(optErrs...)
	if s.Action != nil {
		if len(opts) > 0 {
			s.Action.Options = opts
		}
		return s, nil
	}
	if s.Arguments == nil {
		s.Arguments = map[string]any{}
	}
	if err := mergeOptions(s.Arguments, opts, "arguments", false); err != nil {
		return s, stepError(s, "", err)
	}
	return s, nil
}

// decode reads YAML or JSON into JSON's value model (map[string]any, []any, float64, string,
// bool, nil), and the line of each step.
func decode(data []byte) (any, []int, error) {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) > 0 && (trimmed[0] == '{' || trimmed[0] == '[') {
		var v any
		err := json.Unmarshal(data, &v)
		if err == nil {
			// JSON is YAML: its node tree has the steps' lines. The value stays JSON's own
			// (numbers, a key given twice); a JSON file YAML cannot read has no lines.
			var root yaml.Node
			if yaml.Unmarshal(data, &root) != nil {
				return v, nil, nil
			}
			return v, stepLines(&root), nil
		}
		// YAML's flow style looks like JSON too; if YAML can read what is no JSON, it is YAML.
		// JSON that holds what JSON refuses (a number past float64's range) stays JSON.
		var se *json.SyntaxError
		if !errors.As(err, &se) {
			return nil, nil, fmt.Errorf("the steps file is not valid JSON: %w", err)
		}
		if v, lines, yerr := decodeYAML(data); yerr == nil {
			return v, lines, nil
		}
		line := 1 + bytes.Count(data[:se.Offset], []byte("\n"))
		return nil, nil, fmt.Errorf("the steps file is not valid JSON: line %d: %w", line, err)
	}
	return decodeYAML(data)
}

func decodeYAML(data []byte) (any, []int, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, nil, fmt.Errorf("the steps file is not valid YAML: %w", syntaxLine(data, err))
	}
	if len(root.Content) == 0 {
		return nil, nil, nil
	}
	var v any
	if err := root.Content[0].Decode(&v); err != nil {
		return nil, nil, fmt.Errorf("the steps file is not valid YAML: %w", err)
	}
	v, err := jsonValue(v)
	if err != nil {
		return nil, nil, fmt.Errorf("the steps file holds %w", err)
	}
	return v, stepLines(&root), nil
}

// stepLines is the line of each step of a parsed document: a list, or {steps: [...]}.
func stepLines(root *yaml.Node) []int {
	if len(root.Content) == 0 {
		return nil
	}
	list := root.Content[0]
	if list.Kind == yaml.MappingNode {
		m := list
		list = nil
		for i := 0; i+1 < len(m.Content); i += 2 {
			if m.Content[i].Value == "steps" {
				list = m.Content[i+1]
			}
		}
	}
	var lines []int
	if list != nil && list.Kind == yaml.SequenceNode {
		for _, it := range list.Content {
			lines = append(lines, it.Line)
		}
	}
	return lines
}

// jsonValue turns a decoded YAML value into JSON's value model. Keys that are not strings
// (1: a) become strings; values JSON cannot carry (.nan, .inf) are errors.
func jsonValue(v any) (any, error) {
	v = stringKeys(v)
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("a value JSON cannot carry (.nan or .inf?): %w", err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, err
	}
	return out, nil
}

func stringKeys(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			t[k] = stringKeys(e)
		}
	case map[any]any:
		m := make(map[string]any, len(t))
		for k, e := range t {
			m[fmt.Sprint(k)] = stringKeys(e)
		}
		return m
	case []any:
		for i, e := range t {
			t[i] = stringKeys(e)
		}
	}
	return v
}

// describe names a JSON value's type for an error message, with the value when it is short.
func describe(v any) string {
	switch t := v.(type) {
	case nil:
		return "nothing (null)"
	case string:
		return "the string " + show(t)
	case float64:
		return "the number " + show(t)
	case bool:
		return fmt.Sprintf("the boolean %t", t)
	case []any:
		return "the list " + show(t)
	case map[string]any:
		return "the object " + show(t)
	}
	return fmt.Sprintf("%T", v)
}

// show renders a value as JSON, cut to a length an error message can carry.
func show(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	const most = 60
	if s := string(b); len(s) > most {
		return strings.ToValidUTF8(s[:most], "") + "…"
	}
	return string(b)
}
