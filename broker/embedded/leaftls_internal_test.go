package embedded

import (
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/internal/logtest"
)

// A site's failed TLS handshakes with its hub are said at the first, then at the first one each
// leafErrorReportEvery, with the failures since, as a cut is said; each with its reason.
func TestLeafTLSFailureSaidThenEveryMinute(t *testing.T) {
	var out logtest.Buffer
	l := newServerLog(slog.New(slog.NewTextHandler(&out, &slog.HandlerOptions{Level: slog.LevelInfo})))
	l.leafHint = leafRefusedHint(&LeafRemoteOptions{User: "leaf-paris"}, "paris")
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	l.now = func() time.Time { return clock }
	said := func() int { return strings.Count(out.String(), "the TLS handshake with the hub failed") }
	fail := func(reason string) {
		l.Errorf("127.0.0.1:7422 - lid:5 - TLS leafnode handshake error: %s", reason)
		l.Noticef("127.0.0.1:7422 - lid:5 - Leafnode connection closed: TLS Handshake Failure")
		clock = clock.Add(time.Second)
	}
	for range leafErrorReportEvery / time.Second {
		fail("x509: certificate signed by unknown authority")
	}
	if n := said(); n != 1 || !strings.Contains(out.String(), "unknown authority") {
		t.Fatalf("%v of failures said %d times, want once with the reason:\n%s", leafErrorReportEvery, n, out.String())
	}
	l.Noticef("127.0.0.1:7422 - lid:5 - Leafnode connection closed: TLS Handshake Failure") // the hub's side ended it
	// One failure a second since the first was said: leafErrorReportEvery's seconds.
	failures := fmt.Sprintf("failures=%d", leafErrorReportEvery/time.Second)
	if n := said(); n != 2 || !strings.Contains(out.String(), failures) || !strings.Contains(out.String(), "on the hub's side") {
		t.Fatalf("the failure %v after the first said %d times in all, want twice, the second with %s and no stale reason:\n%s",
			leafErrorReportEvery, n, failures, out.String())
	}
	if strings.Contains(out.String(), "lid:5") {
		t.Fatalf("the server's own lines reached the info log:\n%s", out.String())
	}
}
