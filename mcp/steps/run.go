package steps

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/httpsent"
)

// Caller calls tools: an MCP client session.
type Caller interface {
	CallTool(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error)
}

// Client is what a whole run needs of an MCP client session: the tools, and calls.
type Client interface {
	ToolLister
	Caller
}

// Options shape a run.
type Options struct {
	Serial    string // device of the steps that name none; overrides the document's
	Platform  string // platform of the steps that name none; overrides the document's
	KeepGoing bool   // run every step; by default the first failure skips the rest
	// Progress, if set, is called as each step ends (skipped ones too), in order.
	Progress func(Result)
	// Hide, if set, takes secrets out of a screen's texts before a failed expect quotes them cut
	// short: a secret cut in two no longer matches whoever redacts the report afterwards.
	Hide func(string) string
	Log  *slog.Logger
}

// Tools that hand out a lease (result {lease: {handle, serial}}), and the one that takes it back.
const (
	toolAcquire = "acquire_device"
	toolSelect  = "select_device"
	toolRelease = "release_device"
)

// releaseTimeout bounds giving back a lease left over at the end of a run.
const releaseTimeout = 10 * time.Second

// Plan is a document checked against a gateway's tools, ready to run: every step converted to
// its tool call, with the run's serial and platform filled in.
type Plan struct {
	Name     string
	Serial   string
	Platform string
	calls    []plannedCall
	cat      *Catalog
	opts     Options

	mu      sync.Mutex
	holding []string // devices of the leases Run holds now (Holding)
}

type plannedCall struct {
	step Step
	tool string
	args map[string]any
}

// Len is the number of steps.
func (p *Plan) Len() int { return len(p.calls) }

// NewPlan converts every step and checks it against the catalog, so that a step the gateway
// cannot run is an error before anything runs. The error lists every step at fault.
//
// serial and platform are filled into every step whose tool takes them and that sets none. A
// step after acquire_device or select_device gets that lease (and its device) when it runs.
func NewPlan(doc *Document, cat *Catalog, opts Options) (*Plan, error) {
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	p := &Plan{Name: doc.Name, Serial: cmp.Or(opts.Serial, doc.Serial), Platform: cmp.Or(opts.Platform, doc.Platform),
		cat: cat, opts: opts}
	leased := false // an earlier step hands out a lease, and with it a device
	var errs []error
	for _, s := range doc.Steps {
		if s.optErr != nil { // found parsing it, listed with the others' faults
			errs = append(errs, s.optErr)
			continue
		}
		if !cat.Has(s.Method()) { // before its params: they mean nothing to a tool the gateway lacks
			errs = append(errs, stepError(s, "", cat.unknown(s.Method())))
			continue
		}
		req, err := s.Request()
		if err != nil {
			errs = append(errs, stepError(s, "", err))
			continue
		}
		tool, args := req.Params.Name, req.GetArguments()
		fill := func(arg, v string) {
			if _, set := args[arg]; !set && v != "" && cat.Takes(tool, arg) {
				args[arg] = v
			}
		}
		fill("serial", p.Serial)
		if cat.Takes(tool, "serial") { // a list tool's platform filters the list: not the run's to fill
			fill("platform", p.Platform)
		}
		check := args
		if leased { // what the lease will fill in at run time
			check = maps.Clone(args)
			for _, arg := range []string{"lease", "serial"} {
				if _, set := check[arg]; !set && cat.Takes(tool, arg) {
					check[arg] = "from-the-lease"
				}
			}
		}
		if err := cat.Check(tool, check); err != nil {
			errs = append(errs, stepError(s, "", err))
			continue
		}
		if err := p.checkExpect(s, tool); err != nil {
			errs = append(errs, stepError(s, "options."+optExpect, err))
			continue
		}
		if _, set := args["serial"]; !set && !leased && cat.needsDevice(tool) {
			errs = append(errs, stepError(s, "", errors.New("no device: pass --serial, set serial in the file or in the step, "+
				"or put an acquire_device step before this one")))
			continue
		}
		leased = leased || tool == toolAcquire || tool == toolSelect
		p.calls = append(p.calls, plannedCall{step: s, tool: tool, args: args})
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return p, nil
}

// Run prepares doc against the gateway's tools/list and runs it. An error means nothing ran;
// failed steps are in the report.
func Run(ctx context.Context, c Client, doc *Document, opts Options) (*Report, error) {
	cat, err := FetchCatalog(ctx, c)
	if err != nil {
		return nil, err
	}
	p, err := NewPlan(doc, cat, opts)
	if err != nil {
		return nil, err
	}
	return p.Run(ctx, c), nil
}

// heldLease is a lease a step took and no step has given back yet.
type heldLease struct{ handle, serial string }

// Run calls the steps' tools in order; a step with expect then waits for its text on the
// device's screen. The first failure skips the rest, unless the step says ignore_error or the
// run keeps going; an interrupted run (ctx) skips the rest too. Leases the steps took and did
// not give back are released at the end.
func (p *Plan) Run(ctx context.Context, c Caller) *Report {
	start := time.Now()
	rep := &Report{Name: p.Name, Serial: p.Serial, Platform: p.Platform, Started: start.UTC()}
	var held []heldLease
	stop := "" // why the remaining steps are skipped
	for _, pc := range p.calls {
		r := Result{Index: pc.step.Index, Name: pc.step.Name, Method: pc.step.Method(), Tool: pc.tool, Expect: pc.step.Expect}
		if stop != "" {
			r.Status, r.Reason = Skipped, stop
			p.finish(rep, r)
			continue
		}
		args := maps.Clone(pc.args)
		p.useLease(pc.tool, args, held)
		r.Arguments = args
		t0 := time.Now()
		r.Started = t0.UTC()
		callCtx, sent := httpsent.Trace(ctx)
		res, err := c.CallTool(callCtx, newRequest(pc.tool, args))
		switch {
		case err != nil && ctx.Err() != nil:
			r.Status, r.Error = Failed, fmt.Sprintf("interrupted before %s answered (%v)", pc.tool, context.Cause(ctx))
		case err != nil:
			serial, _ := args["serial"].(string)
			r.Status, r.Error = Failed, CallFailure(pc.tool, serial, err, sent.Load())
		case res == nil:
			r.Status, r.Error = Failed, "the gateway sent no result"
		case res.IsError:
			r.Status, r.Error = Failed, resultText(res)
			r.Error += p.hiddenTyped(r.Index, r.Error)
			if pc.tool == toolRelease && leaseEnded(res) { // nothing left to give back at the end
				held = forget(held, args)
				p.setHolding(held)
			}
		default:
			r.Status, r.Text = Passed, resultText(res)
			held = track(held, pc.tool, args, res)
			p.setHolding(held)
			if msg := p.expect(ctx, c, pc, args, held); msg != "" {
				r.Status, r.Error, r.ExpectFailed = Failed, msg, true
			}
		}
		r.Duration = time.Since(t0) // with the wait for expect's text: the step lasts until the screen shows it
		switch {
		case ctx.Err() != nil:
			stop = "the run was interrupted"
		case r.Status == Failed && pc.step.IgnoreError:
			r.Ignored = true
		case r.Status == Failed && !p.opts.KeepGoing:
			stop = fmt.Sprintf("step %d (%s) failed", r.Index, r.Tool)
		}
		p.finish(rep, r)
	}
	rep.Duration = time.Since(start)
	p.release(ctx, c, held)
	return rep
}

func (p *Plan) finish(rep *Report, r Result) {
	rep.add(r)
	p.opts.Log.Debug("step", "index", r.Index, "tool", r.Tool, "status", r.Status, "duration", r.Duration, "error", r.Error)
	if p.opts.Progress != nil {
		p.opts.Progress(r)
	}
}

// useLease gives a step the lease an earlier step took on its device (the latest, if several),
// and that lease's device if the step names none.
func (p *Plan) useLease(tool string, args map[string]any, held []heldLease) {
	serial, _ := args["serial"].(string)
	for _, l := range slices.Backward(held) {
		if serial != "" && l.serial != serial {
			continue
		}
		if _, set := args["lease"]; !set && p.cat.Takes(tool, "lease") {
			args["lease"] = l.handle
		}
		if serial == "" && p.cat.Takes(tool, "serial") {
			args["serial"] = l.serial
		}
		return
	}
}

// track notes the lease a step took (acquire_device, select_device) or gave back.
func track(held []heldLease, tool string, args map[string]any, res *mcpgo.CallToolResult) []heldLease {
	if tool == toolRelease {
		return forget(held, args)
	}
	var out struct {
		Lease struct {
			Handle string `json:"handle"`
			Serial string `json:"serial"`
		} `json:"lease"`
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil || json.Unmarshal(b, &out) != nil || out.Lease.Handle == "" {
		return held
	}
	return append(held, heldLease{out.Lease.Handle, out.Lease.Serial})
}

// forget drops the lease a release_device step named (given back, or found ended).
func forget(held []heldLease, args map[string]any) []heldLease {
	handle, _ := args["lease"].(string)
	return slices.DeleteFunc(held, func(l heldLease) bool { return l.handle == handle })
}

// leaseEnded says whether release_device's refusal means the lease is gone already: stale_lease
// (it expired, or was revoked: by an operator, or as its device or node went away). The
// gateway's refusal names the code: "release_device on S refused (stale_lease): ...".
func leaseEnded(res *mcpgo.CallToolResult) bool {
	return strings.Contains(resultText(res), "("+broker.CodeStaleLease+")")
}

// release gives back the leases the steps left held (a failure skipped their release_device):
// a device the run took must not stay taken until its lease expires. Those it could not give
// back stay in Holding.
func (p *Plan) release(ctx context.Context, c Caller, held []heldLease) {
	if len(held) == 0 || !p.cat.Has(toolRelease) {
		return
	}
	if ctx.Err() != nil { // interrupted: say why the run does not end at once, and for how long at most
		p.opts.Log.Info("giving back the leases the run holds (signal again to leave them leased)", "serials", serials(held),
			"within", releaseTimeout)
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), releaseTimeout)
	defer cancel()
	var kept []heldLease
	for _, l := range held {
		res, err := c.CallTool(ctx, newRequest(toolRelease, map[string]any{"lease": l.handle, "serial": l.serial}))
		switch {
		case err != nil:
			kept = append(kept, l)
			p.opts.Log.Warn("could not release the lease a step took; it ends when its TTL runs out", "serial", l.serial, "err", err)
		case res.IsError && leaseEnded(res):
			p.opts.Log.Debug("the lease a step took had ended already: nothing to give back", "serial", l.serial, "answer", resultText(res))
		case res.IsError:
			kept = append(kept, l)
			p.opts.Log.Warn("could not release the lease a step took; it ends when its TTL runs out", "serial", l.serial, "err", resultText(res))
		default:
			p.opts.Log.Info("released the lease a step took and no step gave back", "serial", l.serial)
		}
	}
	p.setHolding(kept)
}

// Holding returns the devices whose leases the run holds now: taken by a step and not given
// back yet, or, once Run returned, those it could not give back (they stay leased until the
// leases expire). It may be called while Run runs: what a run killed now would leave leased.
func (p *Plan) Holding() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.holding)
}

func (p *Plan) setHolding(held []heldLease) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.holding = serials(held)
}

func serials(held []heldLease) []string {
	var out []string
	for _, l := range held {
		out = append(out, l.serial)
	}
	return out
}

// resultText is a result's text content, with a line for each image.
func resultText(res *mcpgo.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		switch c := c.(type) {
		case mcpgo.TextContent:
			parts = append(parts, c.Text)
		case mcpgo.ImageContent:
			parts = append(parts, fmt.Sprintf("[image %s, %d bytes base64]", c.MIMEType, len(c.Data)))
		}
	}
	return strings.Join(parts, "\n")
}
