package grbl_test

import (
	"bytes"
	"context"
	"errors"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/corral-farm/corral/arm/grbl"
	"github.com/corral-farm/corral/arm/grbl/grblsim"
)

// deadline bounds every wait: generous, for a loaded machine; tests never sleep to wait.
const deadline = 20 * time.Second

// fakeClock is the simulator's manual clock: it moves only when the test advances it.
type fakeClock = grblsim.ManualClock

func newFakeClock() *fakeClock {
	return grblsim.NewManualClock(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
}

// tap records what the client writes to the controller.
type tap struct {
	net.Conn
	mu      sync.Mutex
	written []byte
}

func (t *tap) Write(b []byte) (int, error) {
	t.mu.Lock()
	t.written = append(t.written, b...)
	t.mu.Unlock()
	return t.Conn.Write(b)
}

// Bytes returns a copy of everything written so far.
func (t *tap) Bytes() []byte {
	t.mu.Lock()
	defer t.mu.Unlock()
	return bytes.Clone(t.written)
}

// count returns how many times b was written.
func (t *tap) count(b byte) int { return bytes.Count(t.Bytes(), []byte{b}) }

// rig is a simulator on a fake clock and a client talking to it over loopback TCP.
type rig struct {
	t     *testing.T
	clock *fakeClock
	sim   *grblsim.Sim
	addr  string
	tap   *tap
	c     *grbl.Client
}

// testOpts are the client options of most tests: short reply timeouts, so that a lost ok
// shows within a second.
// testOpts poll fast, and give a line 2 s of real time at rest before its ok counts as lost:
// short enough for the dropped-ok tests, long enough for a loaded 2-core machine under -race
// (400 ms once failed a pty test in a fresh-clone run, its ok merely late).
func testOpts() []grbl.Option {
	return []grbl.Option{grbl.WithPollRate(10), grbl.WithReplyTimeout(2 * time.Second)}
}

func newSim(t *testing.T, clock *fakeClock, opts ...grblsim.Option) *grblsim.Sim {
	t.Helper()
	s := grblsim.New(append([]grblsim.Option{grblsim.WithClock(clock)}, opts...)...)
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// newRig starts a simulator (with simOpts) and a client (testOpts, then opts) on it.
func newRig(t *testing.T, simOpts []grblsim.Option, opts ...grbl.Option) *rig {
	t.Helper()
	clock := newFakeClock()
	s := newSim(t, clock, simOpts...)
	addr, err := s.ServeTCP("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r := &rig{t: t, clock: clock, sim: s, addr: addr}
	r.c = r.open(opts...)
	return r
}

// open connects a client to the rig's simulator over a recorded TCP connection.
func (r *rig) open(opts ...grbl.Option) *grbl.Client {
	r.t.Helper()
	conn, err := net.Dial("tcp", r.addr)
	if err != nil {
		r.t.Fatal(err)
	}
	r.tap = &tap{Conn: conn}
	c, err := grbl.Open(ctxT(r.t), r.tap, append(append(testOpts(), grbl.WithName("sim")), opts...)...)
	if err != nil {
		r.t.Fatalf("open: %v", err)
	}
	r.t.Cleanup(func() { _ = c.Close() })
	return c
}

// ctxT is a context that ends with the test's deadline.
// ptyRig starts a simulator on the fake clock serving a pty, and a client (testOpts, then
// opts) over it; the test is skipped where ptys are not available.
func ptyRig(t *testing.T, opts ...grbl.Option) (r *rig, path string) {
	t.Helper()
	clock := newFakeClock()
	s := newSim(t, clock)
	path, err := s.ServePTY()
	if err != nil {
		t.Skipf("no pty here: %v", err)
	}
	c, err := grbl.DialSerial(ctxT(t), path, 115200, append(testOpts(), opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return &rig{t: t, clock: clock, sim: s, c: c}, path
}

// waitReset waits for a reset event on ev whose welcome text satisfies ok.
func waitReset(t *testing.T, ev <-chan grbl.Event, ok func(welcome string) bool) {
	t.Helper()
	waitFor(t, "a reset event", func() bool {
		for {
			select {
			case e := <-ev:
				if e.Kind == grbl.EventReset && ok(e.Text) {
					return true
				}
			default:
				return false
			}
		}
	})
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	t.Cleanup(cancel)
	return ctx
}

// waitFor polls cond until it holds.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	end := time.After(deadline)
	for !cond() {
		select {
		case <-tick.C:
		case <-end:
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// tick advances the clock by d and brings the simulator up to it.
func (r *rig) tick(d time.Duration) {
	r.clock.Advance(d)
	r.sim.Snapshot()
}

// result is a call run in the background.
type result[T any] struct {
	done chan struct{}
	v    T
	err  error
}

// goCall runs f in the background.
func goCall[T any](f func() (T, error)) *result[T] {
	r := &result[T]{done: make(chan struct{})}
	go func() {
		defer close(r.done)
		r.v, r.err = f()
	}()
	return r
}

// goErr runs f in the background.
func goErr(f func() error) *result[struct{}] {
	return goCall(func() (struct{}, error) { return struct{}{}, f() })
}

// finished reports whether the call returned.
func (r *result[T]) finished() bool {
	select {
	case <-r.done:
		return true
	default:
		return false
	}
}

// pump runs the machine (20 ms of its time each real millisecond) until the call returns,
// and returns its result.
func pump[T any](rg *rig, res *result[T]) (T, error) {
	rg.t.Helper()
	end := time.After(deadline)
	tk := time.NewTicker(time.Millisecond)
	defer tk.Stop()
	for {
		select {
		case <-res.done:
			return res.v, res.err
		case <-end:
			rg.t.Fatal("the call did not return")
		case <-tk.C:
			rg.tick(20 * time.Millisecond)
		}
	}
}

// run runs f while the machine runs, and returns its error.
func (r *rig) run(f func() error) error {
	r.t.Helper()
	_, err := pump(r, goErr(f))
	return err
}

// must runs f while the machine runs and fails the test on its error.
func (r *rig) must(what string, f func() error) {
	r.t.Helper()
	if err := r.run(f); err != nil {
		r.t.Fatalf("%s: %v", what, err)
	}
}

// lines returns how many lines the simulator has read.
func (r *rig) lines() int { return r.sim.Snapshot().Lines }

// fingerUp fails the test when the simulator's finger or spindle is on.
func fingerUp(t *testing.T, s *grblsim.Sim, when string) {
	t.Helper()
	snap := s.Snapshot()
	if snap.Spindle || snap.FingerDown {
		t.Fatalf("%s: spindle %v, finger down %v: the finger was left on", when, snap.Spindle, snap.FingerDown)
	}
}

// strike puts the finger down: a move, M3 S1000, and a barrier so that it is down.
func (r *rig) strike(x, y float64) {
	r.t.Helper()
	ctx := ctxT(r.t)
	r.must("rapid", func() error { return r.c.Rapid(ctx, x, y) })
	r.must("spindle on", func() error { return r.c.SpindleOn(ctx, 1000) })
	r.must("barrier", func() error { return r.c.Barrier(ctx) })
	if snap := r.sim.Snapshot(); !snap.FingerDown {
		r.t.Fatalf("the finger is not down after M3: %+v", snap)
	}
}

// isLinkLost checks that err says the link was lost.
func isLinkLost(t *testing.T, err error) {
	t.Helper()
	if !errors.Is(err, grbl.ErrLinkLost) {
		t.Fatalf("error %v, want ErrLinkLost", err)
	}
}

// waitDead waits for the client to die and returns why.
func waitDead(t *testing.T, c *grbl.Client) error {
	t.Helper()
	select {
	case <-c.Done():
	case <-time.After(deadline):
		t.Fatal("the client did not notice the link was gone")
	}
	return c.Err()
}

// wait waits for the call to return, without running the machine.
func (r *result[T]) wait(t *testing.T) error {
	t.Helper()
	select {
	case <-r.done:
		return r.err
	case <-time.After(deadline):
		t.Fatal("the call did not return")
		return nil
	}
}
