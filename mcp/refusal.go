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

// refusedWith reports whether text is a refusal with code, the gateway's or a node's: its
// code stands before the first colon.
func refusedWith(text, code string) bool {
	head, _, _ := strings.Cut(text, ":")
	return strings.HasSuffix(head, " refused ("+code+")") || head == "refused ("+code+")"
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
