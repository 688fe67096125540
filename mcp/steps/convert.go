package steps

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/corral-farm/corral/nodes/tools"
)

// MobileAction is one HttpRunner action: a method (the tool's name), its params in the method's
// short form (a point, a direction, a package name, ...; or an object of the tool's arguments),
// and options, which become arguments too (duration, press_duration, anti_risk, timeout, ...).
type MobileAction struct {
	Method  string         `json:"method" yaml:"method"`
	Params  any            `json:"params,omitempty" yaml:"params,omitempty"`
	Options map[string]any `json:"options,omitempty" yaml:"options,omitempty"`
}

// Convert turns an action into the tools/call request that performs it, as HttpRunner's
// ActionTool.ConvertActionToCallToolRequest does. It knows each method's params; whether the
// arguments fit the tool is for the gateway's input schema to say (Catalog.Check).
func Convert(a MobileAction) (mcpgo.CallToolRequest, error) {
	args, err := convert(a, false)
	if err != nil {
		return mcpgo.CallToolRequest{}, err
	}
	return newRequest(strings.TrimSpace(a.Method), args), nil
}

func newRequest(tool string, args map[string]any) mcpgo.CallToolRequest {
	req := mcpgo.CallToolRequest{}
	req.Method = string(mcpgo.MethodToolsCall)
	req.Params.Name, req.Params.Arguments = tool, args
	return req
}

// convert builds the arguments of an action; nested is true inside a sequence, where options
// that steer a whole step have no place.
func convert(a MobileAction, nested bool) (map[string]any, error) {
	method := strings.TrimSpace(a.Method)
	if method == "" {
		return nil, errors.New("method is empty: name the tool, e.g. tap_xy")
	}
	params, err := jsonValue(a.Params)
	if err != nil {
		return nil, fmt.Errorf("params: %w", err)
	}
	args := map[string]any{}
	switch p := params.(type) {
	case nil:
	case map[string]any: // every method: the tool's arguments as they are
		maps.Copy(args, p)
	default:
		f := formOf(method)
		if f.conv == nil {
			return nil, fmt.Errorf("params: %s takes %s; got %s", method, f.usage, describe(p))
		}
		got, err := f.conv(p)
		switch {
		case errors.Is(err, errShape):
			return nil, fmt.Errorf("params: %s takes %s, or an object of its arguments; got %s", method, f.usage, describe(p))
		case err != nil:
			return nil, fmt.Errorf("params: %w", err)
		}
		args = got
	}
	opts, err := jsonValue(a.Options)
	if err != nil {
		return nil, fmt.Errorf("options: %w", err)
	}
	o, _ := opts.(map[string]any)
	if o, err = dragSeconds(method, o); err != nil {
		return nil, err
	}
	if err := mergeOptions(args, o, "params", nested); err != nil {
		return nil, err
	}
	v, err := jsonValue(args) // one value model, whatever Go types the caller's params had
	if err != nil {
		return nil, err
	}
	return v.(map[string]any), nil
}

// mergeOptions adds options to args, as HttpRunner's extractActionOptionsToArguments does: an
// option is an argument of the same name, but for the options that steer the run and
// HttpRunner's own spellings (timeout in seconds, pressDuration, offset). from names where args came
// from, for the error of an option that contradicts them.
func mergeOptions(args, opts map[string]any, from string, nested bool) error {
	for _, k := range slices.Sorted(maps.Keys(opts)) {
		name, v := k, opts[k]
		switch k {
		case optIgnoreError, optIdentifier, optExpect, optExpectTimeout:
			if nested {
				return fmt.Errorf("options.%s: steers a whole step; it has no place inside a sequence", k)
			}
			continue
		case "timeout": // HttpRunner's, in seconds
			f, ok := v.(float64)
			if !ok || f <= 0 || math.IsInf(f, 0) {
				return fmt.Errorf("options.timeout: must be a positive number of seconds, got %s", describe(v))
			}
			name, v = "timeout_ms", math.Round(f*1000)
		case "pressDuration":
			name = "press_duration"
		case "offset": // HttpRunner's older spelling of tap_offset
			name = "tap_offset"
		}
		if old, ok := args[name]; ok && !reflect.DeepEqual(old, v) {
			return fmt.Errorf("options.%s: conflicts with %s %s given by %s; keep one", k, name, show(old), from)
		}
		args[name] = v
	}
	return nil
}

// dragSeconds turns drag's options.duration, in seconds as every HttpRunner option is, into the
// tool's milliseconds, as HttpRunner's ToolDrag.ConvertActionToCallToolRequest does (duration *
// 1000); the tool's own argument, in params, stays in milliseconds.
func dragSeconds(method string, opts map[string]any) (map[string]any, error) {
	v, ok := opts["duration"]
	if method != "drag" || !ok {
		return opts, nil
	}
	f, ok := v.(float64)
	if !ok || f <= 0 || math.IsInf(f, 0) {
		return nil, fmt.Errorf("options.duration: drag's option is a positive number of seconds (HttpRunner's), got %s", describe(v))
	}
	ms := math.Round(f * 1000)
	if ms < tools.MinDragMS || ms > tools.MaxDragMS { // said in the seconds the caller wrote
		return nil, fmt.Errorf("options.duration: drag's option is in seconds (HttpRunner's), from %s to %s; got %s",
			tools.FormatNumber(tools.MinDragMS/1000.0), tools.FormatNumber(tools.MaxDragMS/1000.0), tools.FormatNumber(f))
	}
	opts = maps.Clone(opts)
	opts["duration"] = ms
	return opts, nil
}

// errShape says params are not in the method's short form.
var errShape = errors.New("params not in the method's short form")

// form is a method's short form of params: how it is written (for errors and docs) and how it
// becomes arguments. A nil conv means the method takes no params (an object of arguments aside).
type form struct {
	usage string
	conv  func(p any) (map[string]any, error)
}

// formOf returns a method's short form: a device tool's from its tools.Tool (Short), a gateway
// tool's from the cases here, so that a step can be written as HttpRunner writes it;
// convert_test.go fails for a tool that has none.
func formOf(method string) form {
	if t, ok := tools.Lookup(method); ok {
		return shortForm(t.Short)
	}
	switch method { // the gateway's own: devices, leases and tasks
	case "list_available_devices", "list_leases", "get_latest_task":
		return form{usage: "no params"}
	case "select_device", "get_device_status", "acquire_device", "emergency_stop":
		return form{`a serial, e.g. "emulator-5554"`, text("serial")}
	case "release_device":
		return form{"a lease handle (or nothing: the run's lease)", text("lease")}
	case "abort_task", "get_task_result":
		return form{"a task id", text("task_id")}
	}
	return form{usage: noShortForm}
}

// shortForm is the converter of a device tool's short form.
func shortForm(s tools.Short) form {
	f := form{usage: s.Usage}
	switch s.Kind {
	case tools.ShortNone:
	case tools.ShortNumbers:
		f.conv = numbers(s.Keys...)
	case tools.ShortText:
		f.conv = text(s.Keys[0])
	case tools.ShortBBox:
		f.conv = func(p any) (map[string]any, error) {
			if _, err := numbers("l", "t", "r", "b")(p); err != nil {
				return nil, err
			}
			return map[string]any{s.Keys[0]: p}, nil
		}
	case tools.ShortSwipe:
		f.conv = func(p any) (map[string]any, error) {
			if d, ok := p.(string); ok {
				return map[string]any{"direction": d}, nil
			}
			return numbers(s.Keys...)(p)
		}
	case tools.ShortSeconds:
		f.conv = func(p any) (map[string]any, error) {
			f, err := number(p)
			return map[string]any{s.Keys[0]: f}, err
		}
	case tools.ShortWhole:
		f.conv = func(p any) (map[string]any, error) {
			f, err := number(p)
			if err == nil && f != math.Trunc(f) {
				err = errShape
			}
			return map[string]any{s.Keys[0]: f}, err
		}
	case tools.ShortNumberList:
		f.conv = func(p any) (map[string]any, error) {
			if f, ok := p.(float64); ok {
				return map[string]any{s.Keys[0]: []any{f}}, nil
			}
			list, ok := p.([]any)
			if !ok || len(list) == 0 {
				return nil, errShape
			}
			for _, e := range list {
				if _, isNum := e.(float64); !isNum {
					return nil, errShape
				}
			}
			return map[string]any{s.Keys[0]: list}, nil
		}
	case tools.ShortSteps:
		f.conv = sequence
	case tools.ShortTextList:
		f.conv = func(p any) (map[string]any, error) {
			list, ok := p.([]any)
			if !ok || len(list) == 0 {
				return nil, errShape
			}
			for _, e := range list {
				if _, isText := e.(string); !isText {
					return nil, errShape
				}
			}
			return map[string]any{s.Keys[0]: list}, nil
		}
	}
	return f
}

// noShortForm is the usage of a method formOf does not know.
const noShortForm = "no short form of params (give an object of the tool's arguments)"

// numbers converts a list of as many numbers as keys.
func numbers(keys ...string) func(p any) (map[string]any, error) {
	return func(p any) (map[string]any, error) {
		list, ok := p.([]any)
		if !ok || len(list) != len(keys) {
			return nil, errShape
		}
		args := make(map[string]any, len(keys))
		for i, k := range keys {
			f, isNum := list[i].(float64)
			if !isNum {
				return nil, errShape
			}
			args[k] = f
		}
		return args, nil
	}
}

// text converts a string into the argument key.
func text(key string) func(p any) (map[string]any, error) {
	return func(p any) (map[string]any, error) {
		s, ok := p.(string)
		if !ok {
			return nil, errShape
		}
		return map[string]any{key: s}, nil
	}
}

// number reads a number, or a string holding one (HttpRunner accepts "1.5" for sleep).
func number(p any) (float64, error) {
	switch t := p.(type) {
	case float64:
		return t, nil
	case string:
		f, err := strconv.ParseFloat(strings.TrimSpace(t), 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return 0, errShape
		}
		return f, nil
	}
	return 0, errShape
}

// sequence converts the steps of a sequence: each an action, converted as a step is, or the
// tool's own {tool_name, args} (or PhysiClaw's {tool_name, arg}) as it is.
func sequence(p any) (map[string]any, error) {
	list, ok := p.([]any)
	if !ok {
		return nil, errShape
	}
	out := make([]any, 0, len(list))
	for i, it := range list {
		m, ok := it.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("sequence step %d: is an action {method, params, options} or {tool_name, args}; got %s", i+1, describe(it))
		}
		if _, ok := m["tool_name"]; ok {
			out = append(out, m)
			continue
		}
		method, _ := m["method"].(string)
		if method == "" {
			return nil, fmt.Errorf("sequence step %d: method is missing (or give tool_name and args)", i+1)
		}
		for k := range m {
			if k != "method" && k != "params" && k != "options" {
				return nil, fmt.Errorf("sequence step %d (%s): unknown field %q; an action has method, params and options", i+1, method, k)
			}
		}
		opts, ok := m["options"].(map[string]any)
		if !ok && m["options"] != nil {
			return nil, fmt.Errorf("sequence step %d (%s): options must be an object, got %s", i+1, method, describe(m["options"]))
		}
		args, err := convert(MobileAction{Method: method, Params: m["params"], Options: opts}, true)
		if err != nil {
			return nil, fmt.Errorf("sequence step %d (%s): %w", i+1, method, err)
		}
		out = append(out, map[string]any{"tool_name": method, "args": args})
	}
	return map[string]any{"steps": out}, nil
}
