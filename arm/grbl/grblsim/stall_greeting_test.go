package grblsim_test

import (
	"bufio"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/arm/grbl/grblsim"
)

// A stalled controller (frozen, as kill -STOP leaves it) is silent to a new connection too:
// it greeted it ("Grbl 1.1h"), unlike a stopped one, so a client took it for alive. QA:
// `corral sim arm --freeze-after 80` greeted every new connection while it answered nothing.
func TestStalledControllerGreetsNoNewConnection(t *testing.T) {
	s := newSim(t, grblsim.WithClock(newFakeClock()))
	s.Stall(time.Hour) // on the fake clock: until the test ends it
	conn, port := net.Pipe()
	t.Cleanup(func() { _ = conn.Close() })
	s.Attach(port) // it has taken the connection when Attach returns: while stalled
	// The stall ends; the first line on the connection is the answer to the '?' sent after
	// it (TCP keeps the order), not a welcome sent while stalled.
	s.StallUntil(time.Time{})
	if _, err := conn.Write([]byte("?")); err != nil {
		t.Fatal(err)
	}
	_ = conn.SetReadDeadline(time.Now().Add(deadline)) // a bound on a loaded machine, not a wait
	sc := bufio.NewScanner(conn)
	sc.Split(splitCRLF)
	for sc.Scan() {
		l := sc.Text()
		if l == "" {
			continue
		}
		if !strings.HasPrefix(l, "<") {
			t.Fatalf("a connection made while the controller was stalled got %q first, want nothing before the status report", l)
		}
		return
	}
	t.Fatalf("no status report after the stall ended: %v", sc.Err())
}
