package mcp

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/corral-farm/corral/broker"
)

// toolResult turns a node's answer into an MCP result: structured content mirrored as text,
// image content for screenshots, and for anything but success an isError result that says what
// happened and what to do, with what the node answered all the same (withReport).
func (g *Gateway) toolResult(ctx context.Context, res broker.TaskResult) *mcpgo.CallToolResult {
	setOutcome(ctx, res.Outcome)
	if res.Outcome != broker.OutcomeSucceeded {
		return withReport(errorResult(failureText(res, holderFrom(ctx))), res)
	}
	var structured any
	text := res.Text
	if len(res.Data) > 0 {
		structured = json.RawMessage(res.Data)
		text = string(res.Data)
	}
	if len(res.Image) == 0 && (len(res.Data) == 0 || res.Text == "") { // one text: most answers
		out := textResult(text)
		out.StructuredContent = structured
		return out
	}
	out := &mcpgo.CallToolResult{StructuredContent: structured}
	if len(res.Image) > 0 {
		out.Content = append(out.Content, mcpgo.NewImageContent(base64.StdEncoding.EncodeToString(res.Image), res.ImageType))
	}
	if len(res.Data) > 0 && res.Text != "" { // a report beside the structured result: run_agent_task's Markdown, first as the seed's
		out.Content = append(out.Content, mcpgo.NewTextContent(res.Text))
	}
	out.Content = append(out.Content, mcpgo.NewTextContent(text))
	return out
}

// failureText explains a failed or refused task in words an agent can act on; caller is who
// asked, so that a device it holds itself is not shown as someone else's.
func failureText(res broker.TaskResult, caller broker.Holder) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s on %s %s", res.Tool, res.Serial, strings.ReplaceAll(res.Outcome, "_", " "))
	if res.Code != "" {
		fmt.Fprintf(&b, " (%s)", res.Code)
	}
	if res.Error != "" {
		fmt.Fprintf(&b, ": %s", res.Error)
	}
	switch {
	case (res.Code == broker.CodeBusy || res.Code == broker.CodeWaitExpired) && res.Lease != nil && res.Lease.Holder.Is(caller):
		b.WriteString(". " + yoursText(res.Lease))
	case (res.Code == broker.CodeBusy || res.Code == broker.CodeWaitExpired) && res.Lease != nil:
		b.WriteString(". " + holderText(res.Lease) + otherSessionText(res.Lease.Holder, caller) + " " + queueHint(res.Tool, res.Code))
	}
	b.WriteString(taskNote(res.ID))
	return b.String()
}

// queueHint says what a caller refused for another's busy device can do: queue for it, or,
// when it already waited (wait_expired), wait longer.
func queueHint(tool, code string) string {
	switch {
	case code == broker.CodeWaitExpired:
		return fmt.Sprintf("Pass a larger wait_seconds on this call (at most %d) to wait longer, or use another device.", maxWaitSeconds)
	case tool == "acquire_device": // the two ways below are one
		return "Pass wait_seconds to queue for it, or use another device."
	}
	return "Call acquire_device with wait_seconds to queue for it, pass wait_seconds on this call, or use another device."
}

// holderText says who has a busy device and what is known of when it frees: a lease's
// expiry and hard end; a task run without a lease only ends by itself: in about as long as its
// tool told (a sleep's length: broker.RunningTask.Expected), else by its own deadline at the
// latest (its timeout_ms or the tool's default, not the lease's or the tool's maximum); and how
// many wait.
func holderText(l *broker.Lease) string {
	at := func(t time.Time) string {
		return fmt.Sprintf("%s (in %s)", t.UTC().Format(time.RFC3339), time.Until(t).Round(time.Second))
	}
	r := l.Running
	if r == nil && l.Holder == (broker.Holder{}) { // nobody has it (an older node's answer on a device not online)
		return fmt.Sprintf("No one holds it now; %d waiting.", l.QueueLen)
	}
	left, expected := r.Left(time.Now())
	if r != nil && r.Implicit {
		ends := fmt.Sprintf("by its deadline %s at the latest", at(r.Deadline))
		if expected {
			ends = fmt.Sprintf("in about %s", left)
		}
		return fmt.Sprintf("Running %s for %s since %s, without a lease: the device is free when that task ends, %s; %d waiting.",
			r.Tool, l.Holder, r.Started.UTC().Format(time.RFC3339), ends, l.QueueLen)
	}
	s := fmt.Sprintf("Held by %s until %s, at most until %s", l.Holder, at(l.ExpiresAt), l.MaxUntil.UTC().Format(time.RFC3339))
	switch {
	case r != nil && expected:
		s += fmt.Sprintf("; running %s for about %s more", r.Tool, left)
	case r != nil:
		s += fmt.Sprintf("; running %s, deadline %s", r.Tool, at(r.Deadline))
	}
	return s + fmt.Sprintf("; %d waiting.", l.QueueLen)
}

// otherSessionText says, when another session of the caller's principal and client holds the
// device (another corral run, a second CI job with the same token), that it is not this
// session, whose lease calls would pass; "" for anyone else. Sessions show by their tags: the
// caller learns its own here, to match the holder's against (list_leases marks its own leases).
func otherSessionText(h, caller broker.Holder) string {
	if h.Principal != caller.Principal || h.Client != caller.Client {
		return ""
	}
	you := "you have no session (this connection sends neither a protocol session nor a " + CallerHeader + " header)"
	if caller.Session != "" {
		you = "you are session " + caller.Session
	}
	return fmt.Sprintf(" That is another session of %s (the holder is session %s; %s): if its lease is yours, pass its handle as lease (corral call: export CORRAL_LEASE=<handle>).",
		h.Name(), h.Session, you)
}

// yoursText says what to do when the caller itself has the busy device: queueing for it
// would wait on itself. The handle is the holder's secret and is not in the answer: the
// caller has it from acquire_device or select_device. A call naming a device select_device
// took uses its lease without being given it (select_device_held.go), so what is left here is
// mostly acquire_device's, which keeps requiring its handle.
func yoursText(l *broker.Lease) string {
	if r := l.Running; r != nil && r.Implicit {
		return fmt.Sprintf("You are its user: your own %s (started %s, without a lease) is running on it; wait for its answer, or pass wait_seconds to run after it.",
			r.Tool, r.Started.UTC().Format(time.RFC3339))
	}
	s := fmt.Sprintf("You hold it (%s, epoch %d, until %s): pass your lease, the handle acquire_device or select_device gave you, as lease "+
		"(calls naming the device select_device took run under its lease without one, but a lease acquire_device took needs its handle on every call; "+
		"list_leases shows your leases, not their handles; "+
		"corral call passes $CORRAL_LEASE as lease: export it)", l.Holder, l.Epoch, l.ExpiresAt.UTC().Format(time.RFC3339))
	if l.Running != nil {
		s += fmt.Sprintf("; your %s is running on it now", l.Running.Tool)
	}
	return s + "."
}

// withReport adds to the error result of a task that failed, was aborted or timed out the
// result its node answered all the same (an agent task's: run_agent_task's structured result
// and Markdown report, ai_action's actions), after the text that says what went wrong.
func withReport(out *mcpgo.CallToolResult, res broker.TaskResult) *mcpgo.CallToolResult {
	if !out.IsError || len(res.Data) == 0 || !json.Valid(res.Data) {
		return out
	}
	out.StructuredContent = json.RawMessage(res.Data)
	if res.Text != "" { // the report before its JSON copy, as a success has it
		out.Content = append(out.Content, mcpgo.NewTextContent(res.Text))
	}
	out.Content = append(out.Content, mcpgo.NewTextContent(string(res.Data)))
	return out
}

// errorResult is an isError result with one text.
func errorResult(msg string) *mcpgo.CallToolResult {
	out := textResult(msg)
	out.IsError = true
	return out
}

// resultWithText is a result and its one content item, allocated at once: most results carry
// one text, and every call paid an allocation for a slice of its own to hold it.
type resultWithText struct {
	res   mcpgo.CallToolResult
	items [1]mcpgo.Content
}

// textResult is a result with text as its one content item (more may be appended).
func textResult(text string) *mcpgo.CallToolResult {
	b := &resultWithText{}
	b.items[0] = mcpgo.NewTextContent(text)
	b.res.Content = b.items[:]
	return &b.res
}

// structuredResult is a successful result whose structured content is v, mirrored as text.
func structuredResult(ctx context.Context, v any) *mcpgo.CallToolResult {
	b, err := json.Marshal(v)
	if err != nil {
		return errorResult(fmt.Sprintf("result cannot be encoded: %v", err))
	}
	return structuredJSON(ctx, b)
}

// structuredJSON is structuredResult of a value already encoded.
func structuredJSON(ctx context.Context, b []byte) *mcpgo.CallToolResult {
	setOutcome(ctx, broker.OutcomeSucceeded)
	out := textResult(string(b))
	out.StructuredContent = json.RawMessage(b)
	return out
}

// outcomeKey carries a per-call slot: the tool called (for the denial log) and the outcome
// its handler records for metrics. One value a call: every context layer costs the call.
type outcomeKey struct{}

type callSlot struct{ tool, outcome string }

func withCallSlot(ctx context.Context, tool string) (context.Context, *callSlot) {
	s := &callSlot{tool: tool}
	return context.WithValue(ctx, outcomeKey{}, s), s
}

func setOutcome(ctx context.Context, outcome string) {
	if s, ok := ctx.Value(outcomeKey{}).(*callSlot); ok {
		s.outcome = outcome
	}
}

// toolFrom is the tool a call is for, "" outside a call.
func toolFrom(ctx context.Context) string {
	if s, ok := ctx.Value(outcomeKey{}).(*callSlot); ok {
		return s.tool
	}
	return ""
}

// MaxResultBytes caps what one result of a gateway tool (lists, leases, task records: what
// grows with the farm) carries besides images: its structured content as JSON plus the text of
// its text items, the structured content's mirror included. Lists page to stay under it;
// capped cuts anything else. A device tool's result is bounded by its node instead
// (get_source's 512 KB, images by tools.MaxImageBytes): the screen, not the farm, sizes it.
const MaxResultBytes = 32 << 10

// capped holds every result of a gateway tool to MaxResultBytes: one over it is cut (cutResult),
// with a note saying what was cut and how to ask for less, never silently.
func (g *Gateway) capped(tool string, h mcpserver.ToolHandlerFunc) mcpserver.ToolHandlerFunc {
	return func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
		res, err := h(ctx, req)
		if err != nil || res == nil {
			return res, err
		}
		if size := resultSize(res); size > MaxResultBytes {
			res = cutResult(tool, res, size)
			g.log.Info("result cut to the size cap", "tool", tool, "bytes", size, "cap", MaxResultBytes, "now", resultSize(res))
		}
		return res, nil
	}
}
