package sim

import (
	"context"
	"errors"
	"time"
)

// ErrInjected is what FailNext(nil) makes the next operation return, and what PanicNext's panic
// value wraps.
var ErrInjected = errors.New("injected failure")

type faultKind uint8

const (
	faultHang faultKind = iota + 1
	faultPanic
	faultFail
)

// fault is a one-shot misbehaviour queued by a test; each operation takes at most one.
type fault struct {
	kind faultKind
	err  error
}

// SetDelay makes every later device operation take at least d. An operation waiting out the
// delay returns ctx's error as soon as ctx is done.
func (p *Phone) SetDelay(d time.Duration) { p.delay.Store(int64(max(d, 0))) }

// Delay returns what SetDelay set.
func (p *Phone) Delay() time.Duration { return time.Duration(p.delay.Load()) }

// HangNext makes the next operation block, ignoring its ctx, until Close: a driver stuck in a
// call that cannot be cancelled. The hung call then returns ErrClosed.
func (p *Phone) HangNext() { p.queue(fault{kind: faultHang}) }

// PanicNext makes the next operation panic with an *Error wrapping ErrInjected.
func (p *Phone) PanicNext() { p.queue(fault{kind: faultPanic}) }

// FailNext makes the next operation return an *Error wrapping err (ErrInjected if err is nil)
// without touching the phone.
func (p *Phone) FailNext(err error) {
	if err == nil {
		err = ErrInjected
	}
	p.queue(fault{kind: faultFail, err: err})
}

// Operations counts the device operations begun (every ctx-taking method).
func (p *Phone) Operations() int64 { return p.ops.Load() }

// Overlaps counts operations that began while another was still in flight. A node that
// serialises device I/O per device keeps it at zero, unless an operation it gave up on (see
// HangNext) is still running.
func (p *Phone) Overlaps() int64 { return p.overlaps.Load() }

// InFlight returns how many operations are running now.
func (p *Phone) InFlight() int64 { return p.inflight.Load() }

func (p *Phone) queue(f fault) {
	p.mu.Lock()
	p.faults = append(p.faults, f)
	p.mu.Unlock()
}

// track marks an operation in flight. Call it first, before any lock, as `defer p.track()()`,
// so two calls racing into the phone are seen even if one would block on the mutex.
func (p *Phone) track() func() {
	if p.inflight.Add(1) > 1 {
		p.overlaps.Add(1)
	}
	p.ops.Add(1)
	return p.untrack
}

func (p *Phone) untrack() { p.inflight.Add(-1) }

// begin starts a device operation: it checks the phone and ctx, plays a queued fault, then
// waits out the delay.
func (p *Phone) begin(ctx context.Context, op string) error {
	if err := p.check(ctx, op); err != nil {
		return err
	}
	p.mu.Lock()
	var f fault
	if len(p.faults) > 0 {
		f = p.faults[0]
		p.faults[0] = fault{}
		p.faults = p.faults[1:]
		if len(p.faults) == 0 {
			p.faults = nil // let the backing array go
		}
	}
	p.mu.Unlock()
	switch f.kind {
	case faultHang:
		<-p.closed // deliberately deaf to ctx: that is the point of HangNext
		return p.wrap(op, ErrClosed, "the operation hung (HangNext) until Close")
	case faultPanic:
		panic(p.wrap(op, ErrInjected, "PanicNext"))
	case faultFail:
		return p.wrap(op, f.err, "injected by FailNext")
	}
	return p.pause(ctx, op)
}

// wait is begin without faults, for Health.
func (p *Phone) wait(ctx context.Context, op string) error {
	if err := p.check(ctx, op); err != nil {
		return err
	}
	return p.pause(ctx, op)
}

func (p *Phone) check(ctx context.Context, op string) error {
	if p.isClosed() {
		return p.wrap(op, ErrClosed, "the phone left the node; use a new one")
	}
	if err := ctx.Err(); err != nil {
		return p.wrap(op, err, "")
	}
	return nil
}

func (p *Phone) pause(ctx context.Context, op string) error {
	if d := p.Delay(); d > 0 {
		return p.sleep(ctx, op, d)
	}
	return nil
}
