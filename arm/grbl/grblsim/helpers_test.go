package grblsim_test

import (
	"bufio"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/arm/grbl/grblsim"
)

// deadline bounds every wait: generous, for a loaded machine; tests never sleep to wait.
const deadline = 20 * time.Second

// fakeClock is the simulator's manual clock: it moves only when the test advances it.
type fakeClock = grblsim.ManualClock

func newFakeClock() *fakeClock {
	return grblsim.NewManualClock(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
}

// wire is a raw TCP connection to a simulator, read line by line.
type wire struct {
	t     *testing.T
	conn  net.Conn
	lines chan string
	back  []string // lines read ahead by sync
}

func newSim(t *testing.T, opts ...grblsim.Option) *grblsim.Sim {
	t.Helper()
	s := grblsim.New(opts...)
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// dial connects to s over TCP and reads its welcome.
func dial(t *testing.T, s *grblsim.Sim) *wire {
	t.Helper()
	addr, err := s.ServeTCP("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	w := &wire{t: t, conn: conn, lines: make(chan string, 4096)}
	go func() {
		defer close(w.lines)
		sc := bufio.NewScanner(conn)
		sc.Split(splitCRLF)
		for sc.Scan() {
			if l := sc.Text(); l != "" {
				w.lines <- l
			}
		}
	}()
	w.expect("Grbl 1.1h ['$' for help]")
	return w
}

// splitCRLF splits at CR or LF, as GRBL's hosts read.
func splitCRLF(data []byte, atEOF bool) (int, []byte, error) {
	for i, b := range data {
		if b == '\r' || b == '\n' {
			return i + 1, data[:i], nil
		}
	}
	if atEOF && len(data) > 0 {
		return len(data), data, nil
	}
	return 0, nil, nil
}

func (w *wire) send(s string) {
	w.t.Helper()
	if _, err := w.conn.Write([]byte(s)); err != nil {
		w.t.Fatal(err)
	}
}

// next returns the next line: those kept back by status and sync first.
func (w *wire) next() string {
	w.t.Helper()
	if len(w.back) > 0 {
		l := w.back[0]
		w.back = w.back[1:]
		return l
	}
	return w.recv()
}

// recv returns the next line off the connection.
func (w *wire) recv() string {
	w.t.Helper()
	select {
	case l, ok := <-w.lines:
		if !ok {
			w.t.Fatal("connection closed")
		}
		return l
	case <-time.After(deadline):
		w.t.Fatal("no line from the simulator")
	}
	return ""
}

// expect reads the next line and checks it.
func (w *wire) expect(want string) {
	w.t.Helper()
	if got := w.next(); got != want {
		w.t.Fatalf("got %q, want %q", got, want)
	}
}

// upTo reads lines up to and including the first one for which stop holds; it returns
// them all.
func (w *wire) upTo(stop func(string) bool) []string {
	w.t.Helper()
	var got []string
	for {
		l := w.next()
		got = append(got, l)
		if stop(l) {
			return got
		}
	}
}

// cmd sends a line and returns what came before its answer, and the answer.
func (w *wire) cmd(line string) ([]string, string) {
	w.t.Helper()
	w.send(line + "\n")
	got := w.upTo(func(l string) bool { return l == "ok" || strings.HasPrefix(l, "error:") })
	return got[:len(got)-1], got[len(got)-1]
}

// status asks for a status report and returns it; the lines before it are kept for next.
func (w *wire) status() string {
	w.t.Helper()
	w.send("?")
	for {
		l := w.recv()
		if strings.HasPrefix(l, "<") {
			return l
		}
		w.back = append(w.back, l)
	}
}

// sync returns once the simulator has taken in every byte sent so far: it asks for a
// status report (TCP keeps the order) and keeps the lines before it for next.
func (w *wire) sync() {
	w.t.Helper()
	w.status()
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

// tick advances the clock and brings the simulator up to it (its own timers may lag).
func tick(c *fakeClock, s *grblsim.Sim, d time.Duration) {
	c.Advance(d)
	s.Snapshot()
}
