package embedded

import (
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/internal/logtest"
)

// A hub's refusal of a site's leaf user is said once, then once each leafRefusedRepeat with
// the refusals since, however often the site tries; each user has its own count, and a user
// that is no site's says how to make it one. A server that takes no leaf connections logs the
// server's error as it is.
func TestHubLeafRefusedSaidOnceThenRarely(t *testing.T) {
	refusal := func(user string) string {
		return `127.0.0.1:51234 - lid:5 - authentication error - User "` + user + `"`
	}
	var out logtest.Buffer
	l := newServerLog(slog.New(slog.NewTextHandler(&out, &slog.HandlerOptions{Level: slog.LevelInfo})))
	l.hubLeafUsers = hubLeafUsers(Options{LeafListen: &LeafListenOptions{},
		Users: []User{{Name: "leaf-paris", Password: "s3cret-pw", Leaf: true}, {Name: "gateway", Password: "gw-pw"}}})
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	l.now = func() time.Time { return clock }
	said := func(s string) int { return strings.Count(out.String(), s) }

	for range 100 {
		l.Errorf("%s", refusal("leaf-paris"))
		l.Errorf("%s", refusal("leaf-lyon"))
		clock = clock.Add(time.Second)
	}
	if n := said("the hub refused site paris's leaf connection"); n != 1 {
		t.Fatalf("100 refusals of leaf-paris in 100s said %d times, want once:\n%s", n, out.String())
	}
	if n := said("leaf-lyon, which is no leaf user of this hub"); n != 1 {
		t.Fatalf("100 refusals of leaf-lyon in 100s said %d times, want once:\n%s", n, out.String())
	}
	clock = clock.Add(leafRefusedRepeat)
	l.Errorf("%s", refusal("leaf-paris"))
	if n := said("the hub refused site paris's leaf connection"); n != 2 || !strings.Contains(out.String(), "refusals=100") {
		t.Fatalf("a refusal %v later said %d times in all, want twice, the second with refusals=100:\n%s", leafRefusedRepeat, n, out.String())
	}
	if strings.Contains(out.String(), "authentication error") || strings.Contains(out.String(), "s3cret-pw") {
		t.Fatalf("the server's refusals or a password reached the info log:\n%s", out.String())
	}

	notHub := newServerLog(slog.New(slog.NewTextHandler(&out, nil)))
	notHub.hubLeafUsers = hubLeafUsers(Options{Users: []User{{Name: "leaf-paris", Leaf: true}}})
	notHub.Errorf("%s", refusal("leaf-paris"))
	notHub.Errorf("%s", `127.0.0.1:51235 - cid:7 - authentication error - User "gateway"`)
	l.Errorf("%s", `127.0.0.1:51236 - cid:8 - authentication error - User "gateway"`)
	if n := strings.Count(out.String(), "level=ERROR msg=\"127.0.0.1:5123"); n != 3 {
		t.Fatalf("a server that is no hub, or a client's refusal at a hub, logged %d server errors as they are, want 3:\n%s", n, out.String())
	}
}

// hubLeafRefused finds the user a refused leaf connection gave, if any, and where it came from.
func TestHubLeafRefusedReadsTheUser(t *testing.T) {
	for msg, want := range map[string][2]string{
		`10.0.0.7:4000 - lid:3 - authentication error - User "leaf-tokyo"`: {"leaf-tokyo", "10.0.0.7:4000"},
		`10.0.0.7:4000 - lid:3 - authentication error`:                     {"", "10.0.0.7:4000"},
		`10.0.0.7:4000 - lid:3 - authentication error - Nkey "UABC"`:       {"", "10.0.0.7:4000"},
	} {
		user, from, ok := hubLeafRefused(msg)
		if !ok || user != want[0] || from != want[1] {
			t.Errorf("%s: user %q from %q (%v), want %q from %q", msg, user, from, ok, want[0], want[1])
		}
	}
	for _, msg := range []string{`10.0.0.7:4000 - cid:3 - authentication error - User "gateway"`,
		`10.0.0.7:4000 - lid:3 - Leafnode Error 'Authorization Violation'`} {
		if _, _, ok := hubLeafRefused(msg); ok {
			t.Errorf("%s: read as a refused leaf connection", msg)
		}
	}
}
