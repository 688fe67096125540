package mcp

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/corral-farm/corral/broker"
)

// Limits of acquire_device.
const (
	maxTags         = 32
	maxTagLen       = 64
	maxTTLSeconds   = 24 * 3600
	maxAcquireTries = 16 // devices asked at once before waiting on one
)

// acquireArgs select the devices to lease: every given field must match.
type acquireArgs struct {
	// CountArg is count as given: absent means 1, and 0 is refused as any count outside 1..20.
	CountArg    *int     `json:"count,omitempty"`
	Count       int      `json:"-"` // set by Check
	Platform    string   `json:"platform,omitempty"`
	Serial      string   `json:"serial,omitempty"`
	Model       string   `json:"model,omitempty"`
	Tags        []string `json:"tags,omitempty"`
	WaitSeconds float64  `json:"wait_seconds,omitempty"`
	TTLSeconds  float64  `json:"ttl_seconds,omitempty"`
}

// Check validates the arguments.
func (a *acquireArgs) Check() error {
	for _, f := range []struct{ name, v string }{{argPlatform, a.Platform}, {argSerial, a.Serial}, {"model", a.Model}} {
		if len(f.v) > maxSerialLen {
			return fmt.Errorf("%s is %d bytes long; at most %d", f.name, len(f.v), maxSerialLen)
		}
	}
	a.Platform = platformValue(a.Platform)
	a.Count = 1
	if a.CountArg != nil {
		a.Count = *a.CountArg
	}
	switch {
	case a.Count < 1 || a.Count > maxCount:
		return fmt.Errorf("count must be between 1 and %d (devices leased together), got %d", maxCount, a.Count)
	case a.Count > 1 && a.Serial != "":
		return fmt.Errorf("count %d with serial: a serial names one device; leave serial out and choose the %d devices by platform, model or tags", a.Count, a.Count)
	}
	if len(a.Tags) > maxTags {
		return fmt.Errorf("tags has %d entries; at most %d", len(a.Tags), maxTags)
	}
	for _, t := range a.Tags {
		if t == "" || len(t) > maxTagLen {
			return fmt.Errorf("each tag must be 1 to %d bytes long", maxTagLen)
		}
	}
	if math.IsNaN(a.WaitSeconds) || a.WaitSeconds < 0 || a.WaitSeconds > maxWaitSeconds {
		return fmt.Errorf("wait_seconds must be between 0 and %d, got %v", maxWaitSeconds, a.WaitSeconds)
	}
	if math.IsNaN(a.TTLSeconds) || a.TTLSeconds < 0 || a.TTLSeconds > maxTTLSeconds {
		return fmt.Errorf("ttl_seconds must be between 0 (the node's default) and %d, got %v", maxTTLSeconds, a.TTLSeconds)
	}
	return nil
}

// matches reports whether d has every property the selector asks for.
func (a *acquireArgs) matches(d broker.DeviceEntry) bool {
	return (a.Platform == "" || a.Platform == d.Platform) &&
		(a.Serial == "" || a.Serial == d.Serial) &&
		(a.Model == "" || strings.EqualFold(a.Model, d.Model)) &&
		!slices.ContainsFunc(a.Tags, func(t string) bool { return !slices.Contains(d.Tags, t) })
}

func (a *acquireArgs) String() string {
	var parts []string
	for _, f := range []struct{ name, v string }{{argPlatform, a.Platform}, {argSerial, a.Serial}, {"model", a.Model}} {
		if f.v != "" {
			parts = append(parts, fmt.Sprintf("%s=%q", f.name, f.v))
		}
	}
	if len(a.Tags) > 0 {
		parts = append(parts, fmt.Sprintf("tags=%q", a.Tags))
	}
	if len(parts) == 0 {
		return "any device"
	}
	return strings.Join(parts, ", ")
}

// AcquireResult is acquire_device's structured result: a lease, or with count > 1 a group.
type AcquireResult struct {
	Message string     `json:"message" jsonschema:"What was acquired and how to use it"`
	Lease   LeaseInfo  `json:"lease,omitzero"`
	Group   *GroupInfo `json:"group,omitempty" jsonschema:"count > 1: the group lease"`
}

// stateRank orders devices for acquire_device: free ones first; unhealthy and offline ones
// are not asked at all.
var stateRank = map[string]int{broker.StateOnline: 0, broker.StateLeased: 1, broker.StateBusy: 2}

func toolAcquireDevice(platforms []string) toolDef {
	tool := mcpgo.NewTool("acquire_device",
		mcpgo.WithDescription("Lease a device matching a selector (every given field must match; none: any device). "+
			"Free devices are tried first; if none can be had and wait_seconds > 0, waits in the queue of the matching device with the fewest waiters. "+
			"Returns the lease: pass its handle as lease and its serial as serial on every call; release_device when done. "+
			"count > 1 leases that many matching devices together, all or none, under one group handle."),
		action(false), mcpgo.WithOutputSchema[AcquireResult](),
		mcpgo.WithInteger("count", mcpgo.Min(1), mcpgo.Max(maxCount),
			mcpgo.Description("How many matching devices to lease together, all or none (default 1)")),
		platformParam(platforms),
		mcpgo.WithString(argSerial, mcpgo.MaxLength(maxSerialLen), mcpgo.Description("Exact device serial (optional)")),
		mcpgo.WithString("model", mcpgo.MaxLength(maxSerialLen), mcpgo.Description("Device model, case-insensitive (optional)")),
		mcpgo.WithArray("tags", mcpgo.WithStringItems(mcpgo.MinLength(1), mcpgo.MaxLength(maxTagLen)), mcpgo.MaxItems(maxTags),
			mcpgo.Description("Tags the device must all have (optional)")),
		mcpgo.WithNumber(argWaitSeconds, mcpgo.Min(0), mcpgo.Max(maxWaitSeconds),
			mcpgo.Description("If no matching device is free, wait up to this many seconds in a queue (default 0: answer at once)")),
		mcpgo.WithNumber("ttl_seconds", mcpgo.Min(0), mcpgo.Max(maxTTLSeconds),
			mcpgo.Description("Idle time after which the lease ends unless a call renews it (optional; default and cap set by the node)")),
	)
	return toolDef{tool: tool, handler: func(g *Gateway) mcpserver.ToolHandlerFunc {
		return func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			var a acquireArgs
			if err := decodeArgs(tool, req, &a); err != nil {
				return g.refuseErr(ctx, err), nil
			}
			progress := g.acquireProgress(ctx, req, &a)
			defer progress.end() // no waiting notification after the answer
			res := g.acquire(ctx, &a, progress)
			if res.IsError && callerEnded(ctx.Err()) {
				// Its caller stopped waiting (Ctrl-C, a closed stream): the wait was withdrawn and
				// nothing is held. No loss, nor a refusal, for the error alerts.
				setOutcome(ctx, broker.OutcomeAborted)
			}
			return res, nil
		}
	}}
}

// acquire asks the matching devices in turn, then waits on the least-queued one, telling
// progress (nil: a caller without a progress token) what it waits for.
func (g *Gateway) acquire(ctx context.Context, a *acquireArgs, progress *callProgress) *mcpgo.CallToolResult {
	var all []broker.DeviceEntry
	if d, ok := g.farm.Device(a.Serial); ok && a.Serial != "" {
		all = []broker.DeviceEntry{d} // no need to read the whole registry
	} else {
		all = g.farm.Devices()
	}
	all = slices.DeleteFunc(all, func(d broker.DeviceEntry) bool { return !g.mayUse(ctx, d) }) // the caller's devices only
	var match, tryable []broker.DeviceEntry
	for _, d := range all {
		if a.matches(d) {
			match = append(match, d)
			if _, ok := stateRank[d.State]; ok {
				tryable = append(tryable, d)
			}
		}
	}
	if len(match) == 0 {
		if err := g.checkPlatform(a.Platform); err != nil {
			return g.refuseErr(ctx, err)
		}
		return g.refuse(ctx, broker.CodeUnknownDevice, fmt.Sprintf("no device matches %s. The farm has: %s", a, g.usableSummary(ctx, all)))
	}
	if len(tryable) == 0 {
		return g.refuse(ctx, unavailableCode(match), fmt.Sprintf("every device matching %s is unhealthy, offline or on a draining node: %s", a, whyUnavailable(match)))
	}
	if a.Count > 1 {
		return g.acquireGroup(ctx, a, match, tryable, progress)
	}
	slices.SortFunc(tryable, func(x, y broker.DeviceEntry) int {
		return cmp.Or(cmp.Compare(stateRank[x.State], stateRank[y.State]), cmp.Compare(x.Serial, y.Serial))
	})
	req := broker.AcquireRequest{V: broker.WireVersion, Holder: holderFrom(ctx), TTLMS: int64(a.TTLSeconds * 1000)}
	var refusals, codes []string // each device's refusal, and its code
	best, bestWaiters, yours := "", math.MaxInt, 0
	var bestLease *broker.Lease // the node's busy answer for best: who holds it
	for _, d := range tryable[:min(len(tryable), maxAcquireTries)] {
		req.Serial = d.Serial
		ans, err := g.farm.Acquire(ctx, req)
		switch {
		case err != nil:
			refusals, codes = append(refusals, fmt.Sprintf("%s: %v", d.Serial, err)), append(codes, codeUnavailable)
			continue
		case ans.OK && ans.Lease != nil:
			return g.acquired(ctx, *ans.Lease, "", a.TTLSeconds)
		case ans.Code == broker.CodeQuota: // the caller's bound, whatever the device: it says what helps
			setOutcome(ctx, broker.OutcomeRefused)
			return errorResult(leaseRefusal("acquire_device", d.Serial, ans, req.Holder))
		}
		refusals = append(refusals, strings.TrimSuffix(leaseRefusal("acquire_device", d.Serial, ans, req.Holder), "."))
		codes = append(codes, ans.Code)
		waiters := 0
		if ans.Lease != nil {
			waiters = ans.Lease.QueueLen
		}
		switch {
		case ans.Code == broker.CodeBusy && ans.Lease != nil && ans.Lease.Holder.Is(req.Holder):
			yours++ // queueing for it would wait on the caller itself (another session of its principal may queue)
		case ans.Code == broker.CodeBusy && waiters < bestWaiters:
			best, bestWaiters, bestLease = d.Serial, waiters, ans.Lease
		}
		if ctx.Err() != nil {
			break
		}
	}
	if a.WaitSeconds > 0 && best != "" && ctx.Err() == nil {
		// Its own id: the waiting notes find its place in the queue by it (requestWaitText).
		req.Serial, req.WaitMS, req.ID = best, int64(a.WaitSeconds*1000), newRequestID()
		progress.waitingFor(g.requestWaitText(best, req.ID, bestLease, bestWaiters, time.Duration(req.WaitMS)*time.Millisecond, ""))
		ans, err := g.farm.Acquire(ctx, req)
		switch {
		case err != nil:
			setOutcome(ctx, broker.OutcomeLost)
			return errorResult(fmt.Sprintf("acquire_device waiting for %s%s: %v", best, lostWords(err), err))
		case ans.OK && ans.Lease != nil:
			return g.acquired(ctx, *ans.Lease, waitedNote(bestWaiters), a.TTLSeconds)
		}
		setOutcome(ctx, broker.OutcomeRefused)
		return errorResult(leaseRefusal("acquire_device", best, ans, req.Holder))
	}
	var hint string
	switch {
	case best != "" && len(refusals) == 1:
		// its refusal says how to queue for it
	case best != "":
		hint = " Pass wait_seconds to queue for the device with the fewest waiters, or choose other devices."
	case yours == len(refusals):
		// You hold every one: the refusals say so and how to use the lease.
	default:
		hint = " None of them can be queued for; try again later or choose other devices."
	}
	return g.refuse(ctx, refusalsCode(codes), fmt.Sprintf("%s%s.%s", unleasedPrefix(a), strings.Join(refusals, "; "), hint))
}

// refusalsCode is the code of acquire_device's refusal when each device it tried refused with
// one of codes: busy when one is held (waiting helps), else theirs when they agree, else the
// first's.
func refusalsCode(codes []string) string {
	switch {
	case slices.Contains(codes, broker.CodeBusy):
		return broker.CodeBusy
	case len(codes) == 0:
		return codeUnavailable
	}
	return codes[0]
}

// unleasedPrefix begins acquire_device's answer when no device matching a could be leased,
// after its code and before its nodes' refusals (the console reads them: refusedAsBusy).
func unleasedPrefix(a *acquireArgs) string {
	return fmt.Sprintf("no device matching %s could be leased: ", a)
}

// acquired is the successful answer of acquire_device; the session remembers the lease for
// release_device without one. ttl is the idle TTL asked for (0: the node's).
func (g *Gateway) acquired(ctx context.Context, l broker.Lease, how string, ttl float64) *mcpgo.CallToolResult {
	g.rememberAcquired(ctx, l.Handle)
	return structuredResult(ctx, AcquireResult{Lease: leaseInfo(l), Message: fmt.Sprintf(
		"Leased device %s%s: pass serial %q and lease %q on every call. The lease ends at %s unless a call renews it (at most at %s); release_device when done.%s",
		l.Serial, how, l.Serial, l.Handle, l.ExpiresAt.UTC().Format(time.RFC3339), l.MaxUntil.UTC().Format(time.RFC3339), ttlCut(l, ttl))})
}

// ttlCut says so when the node granted a shorter idle TTL than ttl seconds, its cap
// (--lease-ttl); "" otherwise.
func ttlCut(l broker.Lease, ttl float64) string {
	granted := l.ExpiresAt.Sub(l.AcquiredAt)
	if ttl <= 0 || l.ExpiresAt.Equal(l.MaxUntil) || granted.Seconds() >= ttl-1 {
		return ""
	}
	return fmt.Sprintf(" ttl_seconds %v is over this node's cap: the lease ends after %s without a call.", ttl, granted.Round(time.Second))
}

// farmSummary lists devices briefly: serial (platform model, state, tags).
func farmSummary(devs []broker.DeviceEntry) string {
	if len(devs) == 0 {
		return "no devices at all (is a node running?)"
	}
	devs = slices.SortedFunc(slices.Values(devs), func(x, y broker.DeviceEntry) int { return cmp.Compare(x.Serial, y.Serial) })
	const most = 10
	var parts []string
	for _, d := range devs[:min(len(devs), most)] {
		s := fmt.Sprintf("%s (%s", d.Serial, d.Platform)
		if d.Model != "" {
			s += " " + d.Model
		}
		s += ", " + d.State
		if len(d.Tags) > 0 {
			s += ", tags " + strings.Join(d.Tags, "/")
		}
		parts = append(parts, s+")")
	}
	if len(devs) > most {
		parts = append(parts, fmt.Sprintf("and %d more (list_available_devices)", len(devs)-most))
	}
	return strings.Join(parts, "; ")
}

// whyUnavailable lists devices none of which can be leased, each with its state and its
// reason, which says what to do (a halted rig: arm_recover; an offline phone: replug it).
func whyUnavailable(devs []broker.DeviceEntry) string {
	devs = slices.SortedFunc(slices.Values(devs), func(x, y broker.DeviceEntry) int { return cmp.Compare(x.Serial, y.Serial) })
	const most = 5
	var parts []string
	for _, d := range devs[:min(len(devs), most)] {
		s := d.Serial + " " + d.State
		if d.Reason != "" {
			s += ": " + d.Reason
		}
		parts = append(parts, s)
	}
	if len(devs) > most {
		parts = append(parts, fmt.Sprintf("and %d more (list_available_devices)", len(devs)-most))
	}
	return strings.Join(parts, "; ")
}

// waitedNote says, in an acquire_device answer, that the lease came after a wait in the
// device's queue, and behind how many other callers.
func waitedNote(ahead int) string {
	switch ahead {
	case 0:
		return " (after waiting for its holder to let it go)"
	case 1:
		return " (after waiting in its queue behind 1 other caller)"
	}
	return fmt.Sprintf(" (after waiting in its queue behind %d other callers)", ahead)
}
