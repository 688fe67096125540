package mcp

import (
	"context"
	"errors"
	"fmt"
	"strings"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/corral-farm/corral/broker"
)

// A tool's error result has no code field, so a refusal names its code in its text, where a
// node's does ("tap_xy on SERIAL refused (bad_input): …", failureText): an agent or a script
// tells its own mistake (bad_input) from the farm's state (busy, offline, …) or a policy
// (denied, quota_exceeded) by it. The gateway's own refusals read the same way:
// "acquire_device refused (bad_input): …".

// codeRateLimited is the code of a call the gateway's rate limit refused (ratelimit.go): the
// device takes more calls later. A gateway's own code: no node answers it.
const codeRateLimited = "rate_limited"

// refuse answers a call the gateway refuses itself, with code: nothing ran.
func (g *Gateway) refuse(ctx context.Context, code, msg string) *mcpgo.CallToolResult {
	setOutcome(ctx, broker.OutcomeRefused)
	return errorResult(refusalText(toolFrom(ctx), code, msg))
}

// refuseBadInput refuses the caller's own mistake: what it passed is wrong.
func (g *Gateway) refuseBadInput(ctx context.Context, msg string) *mcpgo.CallToolResult {
	return g.refuse(ctx, broker.CodeBadInput, msg)
}

// refuseErr refuses with err's words and its code (codeOf).
func (g *Gateway) refuseErr(ctx context.Context, err error) *mcpgo.CallToolResult {
	return g.refuse(ctx, codeOf(err), err.Error())
}

// refusalText is a refusal of tool ("" outside a call) with code: "TOOL refused (CODE): msg".
// A msg that begins with the tool's name ("release_device: …") has it once.
func refusalText(tool, code, msg string) string {
	if tool == "" {
		return fmt.Sprintf("refused (%s): %s", code, msg)
	}
	return fmt.Sprintf("%s refused (%s): %s", tool, code, strings.TrimPrefix(msg, tool+": "))
}

// refusedWith reports whether text is a refusal with code, the gateway's or a node's.
func refusedWith(text, code string) bool {
	c, _, ok := refusalCode(text)
	return ok && c == code
}

// refusalCode reads a refusal's text, the gateway's ("TOOL refused (CODE): …") or a node's
// ("TOOL on SERIAL refused (CODE): …"): its code and the words after it. Its first " refused ("
// is read, not its first colon: a serial may hold colons ("127.0.0.1:5555", every
// --sim-android phone). Words before it with ": " are another answer's that quotes a refusal.
func refusalCode(text string) (code, rest string, ok bool) {
	head, after, found := strings.Cut(" "+text, " refused (")
	if !found || strings.Contains(head, ": ") {
		return "", "", false
	}
	code, rest, found = strings.Cut(after, "): ")
	if !found || code == "" || strings.ContainsAny(code, " ():") {
		return "", "", false
	}
	return code, rest, true
}

// codeUnknownTask is the code of get_task_result's and get_latest_task's refusal of a task id
// no record has and no device shows running or queued: the id may be wrong, or the task's
// record gone. A gateway's own code.
const codeUnknownTask = "unknown_task"

// codeUnavailable is the code of a refusal for want of the farm's state in NATS (its lease list,
// its task records could not be read): nothing is known to be wrong with the call; try again.
const codeUnavailable = "unavailable"

// taskReadCode is the code of a refusal for a task record that could not be read for err:
// unknown_task when none has its id, unavailable when the store did not answer.
func taskReadCode(err error) string {
	if errors.Is(err, broker.ErrNotFound) {
		return codeUnknownTask
	}
	return codeUnavailable
}

// queuedCode is the code of get_task_result's answer for a task that waits in d's queue: busy
// (the device runs another's first), or node_lost when d's node is gone and it never started.
func queuedCode(d broker.DeviceEntry) string {
	if d.State == broker.StateOffline {
		return broker.CodeNodeLost
	}
	return broker.CodeBusy
}

// refuseUnknownDevice refuses serial, which no device in the farm has.
func (g *Gateway) refuseUnknownDevice(ctx context.Context, serial string) *mcpgo.CallToolResult {
	return g.refuse(ctx, broker.CodeUnknownDevice, unknownDeviceText(serial))
}

// unknownDeviceText says no device has serial, and where the serials are.
func unknownDeviceText(serial string) string {
	return fmt.Sprintf("unknown device %q: no device in the farm has this serial; call list_available_devices for the serials", serial)
}

// codedError is an error that is not the caller's mistake, with the code to refuse it with.
type codedError struct {
	code string
	err  error
}

func (e codedError) Error() string { return e.err.Error() }
func (e codedError) Unwrap() error { return e.err }

// withCode gives err the code a refusal of it names.
func withCode(code string, err error) error { return codedError{code: code, err: err} }

// codeOf is the code of a refusal of err: its codedError's, else bad_input (arguments that
// do not decode, a platform no driver has, …).
func codeOf(err error) string {
	if ce := (codedError{}); errors.As(err, &ce) {
		return ce.code
	}
	return broker.CodeBadInput
}

// unavailableCode is the code of a refusal for want of a usable device among devs (none free,
// or none healthy): busy when one is held or running (waiting helps), draining or unhealthy when
// all are, offline otherwise.
func unavailableCode(devs []broker.DeviceEntry) string {
	count := map[string]int{}
	for _, d := range devs {
		state := d.State
		if d.Draining {
			state = broker.StateDraining
		}
		count[state]++
	}
	switch {
	case count[broker.StateLeased]+count[broker.StateBusy] > 0:
		return broker.CodeBusy
	case count[broker.StateDraining] == len(devs):
		return broker.CodeDraining
	case count[broker.StateUnhealthy] == len(devs):
		return broker.CodeUnhealthy
	}
	return broker.CodeOffline
}

// lostWords names in a call's error that its node was lost ("TOOL on SERIAL lost (node_lost):
// …", as a node's record of the task says it), "" for any other error.
func lostWords(err error) string {
	if !errors.Is(err, broker.ErrNodeLost) {
		return ""
	}
	return " lost (" + broker.CodeNodeLost + ")"
}
