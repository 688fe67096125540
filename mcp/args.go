package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/nodes/tools"
)

// isID says whether v is what task ids and lease handles are made of: 1 to 128 letters,
// digits, '_' and '-'. They end up in NATS subjects, so nothing else (no '.', '*' or '>') may
// pass. (A loop: it runs on every call with a lease, and a regexp costs a microsecond.)
func isID(v string) bool {
	if len(v) == 0 || len(v) > 128 {
		return false
	}
	for i := range len(v) {
		c := v[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// decodeArgs decodes the arguments of a gateway tool into v strictly (unknown fields, wrong
// types and a failed Check are errors), with a message that names the tool's arguments.
func decodeArgs(tool mcpgo.Tool, req mcpgo.CallToolRequest, v any) error {
	if a := req.Params.Arguments; a != nil {
		if _, ok := a.(map[string]any); !ok {
			return fmt.Errorf("arguments must be a JSON object, got %s", jsonType(a))
		}
	}
	raw, err := json.Marshal(req.GetArguments())
	if err != nil {
		return fmt.Errorf("arguments cannot be encoded: %w", err)
	}
	if err := tools.DecodeArgs(raw, v); err != nil {
		return argError(tool, err)
	}
	return nil
}

// typeError matches encoding/json's complaint about a value of the wrong type.
// argError rewrites a decoding error in the words of the tool's arguments: a value of the wrong
// type names the argument and the type it takes; an unknown argument lists the known ones.
func argError(tool mcpgo.Tool, err error) error {
	msg, unknown, ok := tools.ArgProblem(err)
	if !ok {
		return err
	}
	if !unknown {
		return errors.New(msg)
	}
	names := make([]string, 0, len(tool.InputSchema.Properties))
	for k := range tool.InputSchema.Properties {
		names = append(names, k)
	}
	slices.Sort(names)
	return errors.New(msg + "; " + tool.Name + " takes: " + strings.Join(names, ", "))
}

// checkID validates a task id or lease handle given as argument name. A lease handle is a
// secret, and a malformed one may be a real one mistyped: a refusal quotes none of it, it says
// what is wrong with its shape (idFault); one that is a handle in quotes or spaces (copied
// with them) is told so.
func checkID(name, v string) error {
	if isID(v) {
		return nil
	}
	t := strings.Trim(v, " \t\r\n\"'`")
	quoted := t != v && isID(t)
	if name == argLease {
		if quoted {
			return fmt.Errorf("%s: the handle you passed is in quotes or spaces: remove them, and give the handle alone", name)
		}
		return fmt.Errorf("%s: the handle you passed is not one Corral hands out: %s (a handle is 1 to 128 letters, digits, '_' and '-', "+
			"as acquire_device answered it; none of it is shown here, as it may be a real one mistyped)", name, idFault(v))
	}
	shown := v
	if len(v) > 40 {
		shown = strings.ToValidUTF8(v[:40], "") + "…"
	}
	if quoted {
		return fmt.Errorf("%s %q is in quotes or spaces: remove them, and give the %s alone", name, shown, name)
	}
	return fmt.Errorf("%s %q is not one Corral hands out (letters, digits, '_' and '-', at most 128)", name, shown)
}

// idFault says why v is not an id (isID) without quoting it: it is empty or too long, or
// which of its characters may not be in one (that character alone).
func idFault(v string) string {
	if v == "" {
		return "it is empty"
	}
	if len(v) > 128 {
		return fmt.Sprintf("it is %d bytes long", len(v))
	}
	n := 0
	for _, r := range v {
		n++
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			return fmt.Sprintf("its character %d is %q, which no handle has", n, r)
		}
	}
	return "its shape is wrong"
}

// sessionID returns the MCP protocol session of the call, or "" in the stateless protocol.
func sessionID(ctx context.Context) string {
	if s := mcpserver.ClientSessionFromContext(ctx); s != nil {
		return s.SessionID()
	}
	return ""
}

// sessionDevice returns the session's default device, if the call has a session with one.
func (g *Gateway) sessionDevice(ctx context.Context) (broker.SessionDefault, bool) {
	id := sessionID(ctx)
	if id == "" {
		return broker.SessionDefault{}, false
	}
	d, ok := g.farm.SessionDevice(ctx, id)
	return d, ok && d.Serial != ""
}

// deviceSelector is the platform/serial pair of the gateway tools that name one device.
type deviceSelector struct {
	Platform string `json:"platform,omitempty"`
	Serial   string `json:"serial,omitempty"`
}

// Check validates a device selector's lengths; the device itself is looked up later.
func (a *deviceSelector) Check() error {
	for _, f := range []struct{ name, v string }{{argPlatform, a.Platform}, {argSerial, a.Serial}} {
		if len(f.v) > maxSerialLen {
			return fmt.Errorf("%s is %d bytes long; at most %d", f.name, len(f.v), maxSerialLen)
		}
	}
	a.Platform = platformValue(a.Platform)
	return nil
}

// platformParam is the platform argument (HttpRunner seed): one of platforms, the platforms the
// gateway was given (Options.Platforms); any string when it was given none.
func platformParam(platforms []string) mcpgo.ToolOption {
	if len(platforms) == 0 {
		return mcpgo.WithString(argPlatform)
	}
	return mcpgo.WithString(argPlatform, mcpgo.Enum(platforms...))
}
