package embedded

import (
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/internal/logtest"
)

// A hub says a leaf connection's failed TLS handshakes once per remote host (each attempt comes
// from a port of its own), then at the first each leafErrorReportEvery with the failures since;
// a host not heard for as long is forgotten once many were.
func TestHubLeafTLSFailureSaidPerHostThenEveryMinute(t *testing.T) {
	var out logtest.Buffer
	l := newServerLog(slog.New(slog.NewTextHandler(&out, &slog.HandlerOptions{Level: slog.LevelInfo})))
	l.hubLeafUsers = hubLeafUsers(Options{LeafListen: &LeafListenOptions{}, Users: []User{{Name: "leaf-paris", Leaf: true}}})
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	l.now = func() time.Time { return clock }
	said := func(from string) int { return strings.Count(out.String(), "from="+from+" ") }
	fail := func(host string, port int) {
		l.Errorf("%s:%d - lid:%d - TLS leafnode handshake error: remote error: tls: bad certificate", host, port, port)
	}
	for i := range leafErrorReportEvery / time.Second {
		fail("10.0.0.7", 50000+int(i))
		fail("10.0.0.8", 51000+int(i))
		clock = clock.Add(time.Second)
	}
	if said("10.0.0.7") != 1 || said("10.0.0.8") != 1 {
		t.Fatalf("%v of failures from two hosts said %d and %d times, want once each:\n%s", leafErrorReportEvery,
			said("10.0.0.7"), said("10.0.0.8"), out.String())
	}
	fail("10.0.0.7", 52000)
	failures := fmt.Sprintf("failures=%d", leafErrorReportEvery/time.Second)
	if said("10.0.0.7") != 2 || !strings.Contains(out.String(), failures) {
		t.Fatalf("the failure %v after the first said %d times in all, want twice, the second with %s:\n%s",
			leafErrorReportEvery, said("10.0.0.7"), failures, out.String())
	}
	if strings.Contains(out.String(), "lid:") {
		t.Fatalf("the server's own lines reached the info log:\n%s", out.String())
	}

	clock = clock.Add(leafErrorReportEvery)
	for i := range hubLeafTLSHosts {
		fail(fmt.Sprintf("10.1.%d.%d", i/256, i%256), 4000)
	}
	if n := len(l.hubTLSFailures); n > hubLeafTLSHosts {
		t.Fatalf("the hub counts the failures of %d hosts, want at most %d: the idle ones forgotten", n, hubLeafTLSHosts)
	}
}
