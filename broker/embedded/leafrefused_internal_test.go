package embedded

import (
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/internal/logtest"
)

// A site's hub refusing it is said once, then once each leafRefusedRepeat with the refusals
// since, however often the server reports them; a hub's server, which has no hint, logs an
// error with the same words as one.
func TestLeafRefusedSaidOnceThenRarely(t *testing.T) {
	const refusal = "127.0.0.1:7422 - lid:5 - Leafnode Error 'Authorization Violation'"
	var out logtest.Buffer
	l := newServerLog(slog.New(slog.NewTextHandler(&out, &slog.HandlerOptions{Level: slog.LevelInfo})))
	l.leafHint = leafRefusedHint(&LeafRemoteOptions{User: "leaf-paris", Password: "s3cret-pw"}, "paris")
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	l.now = func() time.Time { return clock }
	said := func() int { return strings.Count(out.String(), "the hub refused this site's leaf user leaf-paris") }

	for range 100 {
		l.Errorf("%s", refusal)
		clock = clock.Add(time.Second)
	}
	if n := said(); n != 1 {
		t.Fatalf("100 refusals in 100s said %d times, want once:\n%s", n, out.String())
	}
	clock = clock.Add(leafRefusedRepeat)
	l.Errorf("%s", refusal)
	if n := said(); n != 2 || !strings.Contains(out.String(), "refusals=100") {
		t.Fatalf("a refusal %v later said %d times in all, want twice, the second with refusals=100:\n%s", leafRefusedRepeat, n, out.String())
	}
	if strings.Contains(out.String(), "Authorization Violation") || strings.Contains(out.String(), "s3cret-pw") {
		t.Fatalf("the server's refusals or the password reached the info log:\n%s", out.String())
	}

	hub := newServerLog(slog.New(slog.NewTextHandler(&out, nil)))
	hub.Errorf("%s", refusal)
	if !strings.Contains(out.Line("Authorization Violation"), "level=ERROR") {
		t.Fatalf("a server that is no site logs the error as it is:\n%s", out.String())
	}
}
