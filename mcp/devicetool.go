package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/nodes/tools"
)

// Common arguments of every device tool. platform and serial are as in the HttpRunner seed.
const (
	argPlatform    = "platform"
	argSerial      = "serial"
	argLease       = "lease"
	argTimeoutMS   = "timeout_ms"
	argWaitSeconds = "wait_seconds"
)

// Limits on the common arguments.
const (
	maxSerialLen   = 256
	maxWaitSeconds = 3600
	maxTimeoutMS   = 24 * 3600 * 1000
)

// deviceArgs are the common arguments after validation.
type deviceArgs struct {
	Platform  string
	Serial    string
	Lease     string
	TimeoutMS int64
	WaitMS    int64
}

// deviceParams returns the schema options of the common arguments. Their descriptions are
// short on purpose: they repeat in every tool of tools/list, and the server's instructions
// explain them once. Limits are checked by splitArgs rather than spelled out here.
func deviceParams() []mcpgo.ToolOption {
	return []mcpgo.ToolOption{
		mcpgo.WithString(argPlatform),
		mcpgo.WithString(argSerial),
		mcpgo.WithString(argLease),
		mcpgo.WithInteger(argTimeoutMS),
		mcpgo.WithNumber(argWaitSeconds),
	}
}

// deviceTools are the gateway halves of every device tool (tools.All), in their order.
func deviceTools() []toolDef {
	all := tools.All()
	defs := make([]toolDef, len(all))
	for i, t := range all {
		defs[i] = deviceTool(t)
	}
	return defs
}

// deviceTool builds the MCP tool of spec: its description and hints, the input schema its
// argument struct's tags make plus the common device arguments, and the output schema of its
// result type, as mcpgo.WithOutputSchema makes it.
func deviceTool(spec tools.Tool) toolDef {
	props, required := spec.InputSchema()
	own := func(t *mcpgo.Tool) {
		for name, p := range props {
			t.InputSchema.Properties[name] = p
		}
		t.InputSchema.Required = append(t.InputSchema.Required, required...)
	}
	opts := []mcpgo.ToolOption{mcpgo.WithDescription(spec.Description), annotations(spec.Hints), outputSchema(spec.Result), own}
	if spec.Background {
		opts = append(opts, nullableError()) // its answer says "error": null (backgroundAnswer)
	}
	opts = append(opts, deviceParams()...)
	tool := mcpgo.NewTool(spec.Name, opts...)
	return deviceToolDef(tool, func() any { return reflect.New(spec.Args).Interface() })
}

// annotations are the MCP annotations of h, as readOnly, action and destructive make them.
func annotations(h tools.Hints) mcpgo.ToolOption {
	if h.ReadOnly {
		return mcpgo.WithToolAnnotation(mcpgo.ToolAnnotation{ReadOnlyHint: ptr(true), DestructiveHint: ptr(false), OpenWorldHint: ptr(h.OpenWorld)})
	}
	return mcpgo.WithToolAnnotation(mcpgo.ToolAnnotation{DestructiveHint: ptr(h.Destructive),
		IdempotentHint: trueOrNil(h.Idempotent), OpenWorldHint: ptr(h.OpenWorld)})
}

// outputSchema is mcpgo.WithOutputSchema for a result type known at run time.
func outputSchema(t reflect.Type) mcpgo.ToolOption {
	return func(tool *mcpgo.Tool) {
		schema, err := jsonschema.ForType(t, &jsonschema.ForOptions{IgnoreInvalidTypes: true})
		if err != nil {
			panic(fmt.Sprintf("output schema of %s: %v", t, err)) // a test of every tool catches it
		}
		describeFields(t, schema)
		b, err := json.Marshal(schema)
		if err != nil {
			panic(fmt.Sprintf("output schema of %s: %v", t, err))
		}
		if err := json.Unmarshal(b, &tool.OutputSchema); err != nil {
			panic(fmt.Sprintf("output schema of %s: %v", t, err))
		}
		tool.OutputSchema.Type = "object"
		tool.OutputSchema.PropertyOrder = nil
	}
}

// describeFields sets the descriptions that jsonschema_description tags give (too long or too
// punctuated for a jsonschema tag), as mcpgo.WithOutputSchema does.
func describeFields(t reflect.Type, s *jsonschema.Schema) {
	if s == nil {
		return
	}
	switch t.Kind() {
	case reflect.Pointer:
		describeFields(t.Elem(), s)
	case reflect.Slice, reflect.Array:
		describeFields(t.Elem(), s.Items)
	case reflect.Struct:
		for i := range t.NumField() {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "" {
				name = f.Name
			}
			p := s.Properties[name]
			if p == nil {
				continue
			}
			if d, ok := f.Tag.Lookup("jsonschema_description"); ok {
				p.Description = strings.TrimSpace(d)
			}
			describeFields(f.Type, p)
		}
	}
}

// deviceToolDef binds tool to the handler that checks its arguments (newArgs returns a
// pointer to a new argument struct) and runs it on a device.
func deviceToolDef(tool mcpgo.Tool, newArgs func() any) toolDef {
	name := tool.Name
	return toolDef{
		tool:   tool,
		device: true,
		handler: func(g *Gateway) mcpserver.ToolHandlerFunc {
			var bare noOwnArgs
			return func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
				if a := req.Params.Arguments; a != nil {
					if _, ok := a.(map[string]any); !ok {
						return g.refuseBadInput(ctx, fmt.Sprintf("arguments must be a JSON object, got %s", jsonType(a))), nil
					}
				}
				if res := g.authorizeSteps(ctx, name, req.GetArguments()); res != nil {
					return res, nil // before the arguments: their errors would tell a denied step's
				}
				raw, common, err := splitArgs(req.GetArguments(), newArgs, &bare)
				if err != nil {
					return g.refuseBadInput(ctx, argError(tool, withToolCap(name, err)).Error()), nil
				}
				return g.runOnDevice(ctx, req, name, common, raw), nil
			}
		},
	}
}

// noOwnArgs is what a tool's own arguments decode to when a call gives none (most calls of
// most tools: serial and lease only): decoded, checked and encoded at the first such call, as
// that depends on the tool's argument type alone, and reused by the next.
type noOwnArgs struct {
	once sync.Once
	raw  json.RawMessage
	err  error
}

// splitArgs separates the common arguments from the tool's own, decodes the tool's own into a
// new argument struct (newArgs) strictly (unknown fields, wrong types and failed checks are
// errors) and returns them as JSON; bare keeps that of no own arguments.
func splitArgs(all map[string]any, newArgs func() any, bare *noOwnArgs) (json.RawMessage, deviceArgs, error) {
	var common deviceArgs
	var own map[string]any // made at the first own argument
	for k, v := range all {
		switch k {
		case argPlatform, argSerial, argLease:
			s, ok := v.(string)
			if !ok && v != nil {
				return nil, common, fmt.Errorf("%s must be a string, got %s", k, jsonType(v))
			}
			if len(s) > maxSerialLen {
				return nil, common, fmt.Errorf("%s is %d bytes long; at most %d", k, len(s), maxSerialLen)
			}
			switch k {
			case argPlatform:
				common.Platform = strings.ToLower(s)
			case argSerial:
				common.Serial = s
			default:
				if s != "" {
					if err := checkID(argLease, s); err != nil {
						return nil, common, err
					}
				}
				common.Lease = s
			}
		case argTimeoutMS:
			ms, err := timeoutArg(v)
			if err != nil {
				return nil, common, err
			}
			common.TimeoutMS = ms
		case argWaitSeconds:
			if v == nil {
				continue // not given (common_numbers.go)
			}
			f, err := number(k, v, 0, maxWaitSeconds, tools.FormatNumber)
			if err != nil {
				return nil, common, err
			}
			common.WaitMS = int64(f * 1000)
		default:
			if own == nil {
				own = make(map[string]any, len(all))
			}
			own[k] = v
		}
	}
	if len(own) == 0 {
		bare.once.Do(func() { bare.raw, bare.err = ownArgs(nil, newArgs()) })
		return bare.raw, common, bare.err
	}
	raw, err := json.Marshal(own)
	if err != nil {
		return nil, common, fmt.Errorf("arguments cannot be encoded: %w", err)
	}
	raw, err = ownArgs(raw, newArgs())
	return raw, common, err
}

// ownArgs decodes a tool's own arguments (raw: none when empty) into a strictly and returns
// them encoded again, defaults and all.
func ownArgs(raw json.RawMessage, a any) (json.RawMessage, error) {
	if err := tools.DecodeArgs(raw, a); err != nil {
		return nil, err
	}
	out, err := json.Marshal(a)
	if err != nil {
		return nil, fmt.Errorf("arguments cannot be encoded: %w", err)
	}
	return out, nil
}

// number checks that v is a finite JSON number within [lo, hi]; words writes the bounds
// (86400000 (24 h), not 8.64e+07).
func number(name string, v any, lo, hi float64, words func(float64) string) (float64, error) {
	f, ok := v.(float64)
	if !ok {
		if n, isNum := v.(json.Number); isNum {
			var err error
			if f, err = n.Float64(); err != nil {
				return 0, fmt.Errorf("%s must be a number, got %q", name, n)
			}
		} else {
			return 0, fmt.Errorf("%s must be a number, got %s", name, jsonType(v))
		}
	}
	if math.IsNaN(f) || math.IsInf(f, 0) || f < lo || f > hi {
		return 0, fmt.Errorf("%s must be between %s and %s, got %s", name, words(lo), words(hi), tools.FormatNumber(f))
	}
	return f, nil
}

func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case float64, json.Number:
		return "a number"
	case bool:
		return "a boolean"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

// runOnDevice resolves the device, runs the task on its node and turns the answer into a result.
func (g *Gateway) runOnDevice(ctx context.Context, req mcpgo.CallToolRequest, tool string, common deviceArgs, args json.RawMessage) *mcpgo.CallToolResult {
	spec, _ := tools.Lookup(tool)
	if common.Serial == "" && spec.DefaultDevice {
		common.Serial = g.onlyDevice(ctx, common.Platform)
	}
	dev, asked, errRes := g.resolveDevice(ctx, common)
	if errRes != nil {
		return errRes
	}
	if asked == "" { // without a session: the lease select_device took for this device, if any
		asked = g.heldSelectionLease(ctx, dev.Serial)
	}
	lease, errRes := g.memberLease(ctx, tool, dev.Serial, asked) // a group's handle: its member's lease
	if errRes != nil {
		return errRes
	}
	task := newTask(ctx, dev.Serial, tool, lease, common, args)
	if spec.Background {
		return g.runBackground(ctx, req, spec, dev, task, asked)
	}
	g.inFlight.add(ctx, task) // the caller's latest until its answer is (get_latest_task)
	defer g.inFlight.done(task.ID)
	done, errRes := g.admitCall(ctx, dev.Serial, lease)
	if errRes != nil {
		return errRes
	}
	defer done()
	progress, endProgress := g.deviceCallProgress(ctx, req, spec.Progress, task)
	defer endProgress() // no waiting notification after the answer
	task.Progress = progress != nil
	res, err := g.farm.Run(ctx, task, progress)
	return g.taskAnswer(ctx, dev, task, g.inGroupWords(ctx, asked, task, res), err)
}

// newTask is the task of a device tool's call.
func newTask(ctx context.Context, serial, tool, lease string, common deviceArgs, args json.RawMessage) broker.TaskRequest {
	return broker.TaskRequest{
		V: broker.WireVersion, ID: broker.NewTaskID(), Serial: serial, Tool: tool, Args: args,
		Lease: lease, Holder: holderFrom(ctx), TimeoutMS: common.TimeoutMS, WaitMS: common.WaitMS,
	}
}

// taskAnswer turns what came of a task sent to its node into the call's result.
func (g *Gateway) taskAnswer(ctx context.Context, dev broker.DeviceEntry, task broker.TaskRequest, res broker.TaskResult, err error) *mcpgo.CallToolResult {
	if errors.Is(err, errCallerLeft) { // a background task's caller left; the task runs on
		setOutcome(ctx, broker.OutcomeAborted) // the call, not the task: no loss for the error alerts
		return errorResult(fmt.Sprintf("%s on %s: %v.%s", task.Tool, dev.Serial, err, taskNote(task.ID)))
	}
	if err != nil {
		outcome := broker.OutcomeLost
		if callerEnded(err) {
			outcome = broker.OutcomeAborted // its caller stopped waiting: no loss for the error alerts
			// Its node withdrew it from the queue or aborted it, and records it either way.
			g.rememberLatestID(ctx, task.ID, dev.Serial)
		}
		setOutcome(ctx, outcome)
		return errorResult(lostText(task, dev.Serial, err))
	}
	g.rememberLatest(ctx, res)
	if !reachedNode(res) {
		res.ID = "" // refused before any node saw it: no record will ever have its id
	}
	if res.Code == broker.CodeStaleLease && task.Lease != "" {
		if words := g.forgetEndedSelection(ctx, dev.Serial, task.Lease, res); words != "" {
			res.Error = words
		}
	}
	if res.Code == broker.CodeUnsupported || res.Code == broker.CodeUnconfigured { // the node knows what it lacks; the registry, who can
		res.Error = g.unsupportedText(ctx, task.Tool, task.Args, dev, res.Code, res.Error, res.OwnSetup)
	}
	return g.toolResult(ctx, res)
}

// onlyDevice is the serial of the one device of platform (any, if "") the caller may use, as
// the phone-agent seed's tools, which take no arguments, assume one phone; "" when there are
// none or several (a session's selection still comes first).
func (g *Gateway) onlyDevice(ctx context.Context, platform string) string {
	if s := mcpserver.ClientSessionFromContext(ctx); s != nil && s.SessionID() != "" {
		if d, ok := g.farm.SessionDevice(ctx, s.SessionID()); ok && d.Serial != "" { // not only leases acquire_device took
			return ""
		}
	}
	serial := ""
	for _, d := range g.farm.Devices() {
		if (platform == "" || d.Platform == platform) && g.mayUseSerial(ctx, d.Serial) {
			if serial != "" {
				return ""
			}
			serial = d.Serial
		}
	}
	return serial
}

// resolveDevice finds the device a call is for (its serial, else the session's selection) and
// the lease handle the caller gave for it (else the selection's, when the call names no device
// or the selected one: HttpRunner clients send the serial they selected on every call).
func (g *Gateway) resolveDevice(ctx context.Context, common deviceArgs) (broker.DeviceEntry, string, *mcpgo.CallToolResult) {
	serial, lease := common.Serial, common.Lease
	if serial == "" || lease == "" {
		if s := mcpserver.ClientSessionFromContext(ctx); s != nil && s.SessionID() != "" {
			if d, ok := g.farm.SessionDevice(ctx, s.SessionID()); ok && (serial == "" || serial == d.Serial) {
				serial = d.Serial
				if lease == "" {
					lease = d.Lease
				}
			}
		}
	}
	if serial == "" {
		if words := g.forgottenSelection(ctx); words != "" {
			return broker.DeviceEntry{}, "", g.refuseBadInput(ctx, words)
		}
		return broker.DeviceEntry{}, "", g.refuseBadInput(ctx, "serial is required: call list_available_devices to see the devices, then pass serial (or call select_device once in a session)")
	}
	dev, ok := g.farm.Device(serial)
	if !ok {
		return dev, "", g.refuseUnknownDevice(ctx, serial)
	}
	if errRes := g.denyDevice(ctx, dev); errRes != nil { // before anything is sent to the node
		return dev, "", errRes
	}
	if common.Platform != "" && common.Platform != dev.Platform {
		return dev, "", g.refuseBadInput(ctx, wrongPlatform(dev, common.Platform))
	}
	return dev, lease, nil
}

// wrongPlatform refuses a call that names dev with another platform than its own.
func wrongPlatform(dev broker.DeviceEntry, platform string) string {
	return fmt.Sprintf("device %s is %s, not %s: pass platform %q or leave platform out", dev.Serial, dev.Platform, platform, dev.Platform)
}
