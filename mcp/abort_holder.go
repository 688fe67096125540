package mcp

import (
	"context"
	"fmt"
	"strings"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/corral-farm/corral/broker"
)

// mayAbort refuses to abort the task of a device another principal holds, by lease or by a
// task running without one: only its holder or an operator (policy key operator) may. The
// device is the one named by serial, else the one running the task named by task_id: a
// running task's id is no secret (the console, list_available_devices and `corral tasks`
// show it), so it gets the same rule. A lease handle is what only its holder was given, so it
// goes on to the node, which leaves devices outside the caller's tags alone, as it does a
// task id the registry does not show running: a queued one (its node drops it only for its
// sender or an operator, abortPrincipal), or one not shown yet. Without a policy everyone is
// anonymous and may abort anything, as before.
func (g *Gateway) mayAbort(ctx context.Context, a abortArgs) *mcpgo.CallToolResult {
	p := g.principal(ctx)
	if g.opts.Policy == nil || p == nil || p.Operator || a.Lease != "" {
		return nil
	}
	serial, holder, implicit := a.Serial, "", false
	switch {
	case serial != "":
		holder, implicit = g.deviceHolder(ctx, serial)
	case a.taskID != "":
		serial, holder, implicit = g.taskHolder(ctx, a.taskID, p.Name)
	}
	if holder == "" || holder == p.Name {
		return nil
	}
	// A task run without a lease holds the device until it ends (broker.ImplicitLeaseWords).
	wait := "wait for the device (list_leases shows when its lease ends)"
	if implicit {
		wait = "wait for its task to end: it " + broker.ImplicitLeaseWords + ", " +
			"and acquire_device with wait_seconds holds the device once it ends"
	}
	return g.deny(ctx, denial{reason: reasonHolder, serial: serial, rule: "only the holder or an operator aborts a held device's task; principal " + holder + " holds it"}, fmt.Sprintf("denied by policy: principal %q may not abort the task of device %s, which principal %q holds "+
		"(rule: only the holder or an operator aborts a held device's task); ask its holder, or %s",
		p.Name, serial, holder, wait))
}

// taskHolder finds the device the registry shows running task id and names the principal,
// other than caller, holding it: the task's own holder, else the device's (deviceHolder);
// implicit when the task runs without a lease. All are zero when the task runs nowhere the
// registry shows, or on a device outside the caller's tags: the node's tags rule leaves that
// one alone, and a refusal would name it.
func (g *Gateway) taskHolder(ctx context.Context, id, caller string) (serial, holder string, implicit bool) {
	for _, d := range g.farm.Devices() {
		if d.Task == nil || d.Task.ID != id {
			continue
		}
		if !g.mayUseSerial(ctx, d.Serial) {
			return "", "", false
		}
		if t := d.Task.Holder; t != nil && t.Principal != "" && t.Principal != caller {
			return d.Serial, t.Principal, d.Task.Implicit
		}
		holder, implicit = g.deviceHolder(ctx, d.Serial)
		return d.Serial, holder, implicit
	}
	return "", "", false
}

// deviceHolder names the principal holding a device: its explicit lease's, as the nodes
// answer, else the registry's holder of a task running without a lease (implicit); "" if none.
func (g *Gateway) deviceHolder(ctx context.Context, serial string) (holder string, implicit bool) {
	leases, _ := g.farm.Leases(ctx) // a node that does not answer leaves the registry to say
	for _, l := range leases {
		if l.Serial == serial && l.Holder.Principal != "" {
			return l.Holder.Principal, false
		}
	}
	if dev, ok := g.farm.Device(serial); ok && dev.Holder != "" {
		// The registry shows the holder as a string only.
		return broker.PrincipalOf(dev.Holder), dev.Task != nil && dev.Task.Implicit
	}
	return "", false
}

// abortPrincipal is the principal the nodes hold an abort to (broker.AbortRequest.Principal):
// only a queued task's sender or an operator aborts it, and only a running task's sender, its
// device's lease holder or an operator. A task's id shows in its device's registry entry, but
// only its node knows at once who sent it: the registry mayAbort reads lags a task that has
// just started. "" without a policy (everyone is anonymous and may abort anything) and for an
// operator.
func (g *Gateway) abortPrincipal(ctx context.Context) string {
	p := g.principal(ctx)
	if g.opts.Policy == nil || p == nil || p.Operator {
		return ""
	}
	return p.Name
}

// abortDenied passes on a node's refusal (ans, broker.CodeDenied) of an abort of task id, or
// of the task running on device serial, which another principal queued or runs (the node
// knows its sender at once; the registry this gateway's mayAbort reads lags it): the node
// words it, as mayAbort's refusals read; it is counted and logged as theirs are, with the
// rule the node named.
func (g *Gateway) abortDenied(ctx context.Context, id, serial string, ans broker.AbortAnswer) *mcpgo.CallToolResult {
	if d, _, ok := g.deviceQueued(ctx, id); id != "" && ok {
		serial = d.Serial
	} else if d, ok := g.deviceRunning(ctx, id); id != "" && ok {
		serial = d.Serial
	}
	return g.deny(ctx, denial{reason: reasonHolder, serial: serial, rule: ruleNamed(ans.Error)}, ans.Error)
}

// ruleNamed is the rule a refusal names, the words in its "(rule: …)"; "" if it names none.
func ruleNamed(msg string) string {
	_, rule, ok := strings.Cut(msg, "(rule: ")
	if !ok {
		return ""
	}
	rule, _, _ = strings.Cut(rule, ")")
	return rule
}
