package embedded_test

import (
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/broker/embedded"
	"github.com/corral-farm/corral/internal/logtest"
)

// startLeafPair starts a hub whose leaf user leaf-paris has password hubPassword and a site,
// paris, that connects as leaf-paris with sitePassword, trying again every every; the site logs
// to out at level.
func startLeafPair(t *testing.T, hubPassword, sitePassword string, every time.Duration, out *logtest.Buffer, level slog.Level) (hub, site *server.Server) {
	t.Helper()
	perms, err := broker.LeafPermissions("paris")
	if err != nil {
		t.Fatal(err)
	}
	leaf := embedded.User{Name: "leaf-paris", Password: hubPassword, Permissions: embedded.Permissions(perms), Leaf: true}
	listen := &embedded.LeafListenOptions{Port: -1}
	hub, err = embedded.Start(embedded.Options{Port: -1, StoreDir: t.TempDir(), Name: "hub", Users: []embedded.User{leaf}, LeafListen: listen},
		slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { hub.Shutdown(); hub.WaitForShutdown() })
	site, err = embedded.Start(embedded.Options{Port: -1, StoreDir: t.TempDir(), Name: "paris", Domain: "paris",
		LeafRemote: &embedded.LeafRemoteOptions{URLs: []string{fmt.Sprintf("nats-leaf://127.0.0.1:%d", listen.Port)}, User: "leaf-paris",
			Password: sitePassword, Local: broker.LeafLocal, ReconnectEvery: every}},
		slog.New(slog.NewTextHandler(out, &slog.HandlerOptions{Level: level})))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { site.Shutdown(); site.WaitForShutdown() })
	return hub, site
}

// linesWith are the lines of out that hold s.
func linesWith(out *logtest.Buffer, s string) []string {
	var lines []string
	for l := range strings.Lines(out.String()) {
		if strings.Contains(l, s) {
			lines = append(lines, l)
		}
	}
	return lines
}

// A site cut off from its hub says so once, then about every leafErrorReportEvery: nats-server
// said it at every attempt, every ReconnectEvery, for the whole cut. The bound is what the
// setting allows: attempts are at least ReconnectEvery apart, and one in LeafErrorReports(every)
// is reported, the first included.
func TestSiteCutSaysItselfRarely(t *testing.T) {
	const every = 20 * time.Millisecond
	var out logtest.Buffer
	hub, site := startLeafPair(t, "pw", "pw", every, &out, slog.LevelInfo)
	deadline := time.Now().Add(10 * time.Second)
	for site.NumLeafNodes() == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("the site's uplink not up within 10s; its log:\n%s", out.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	hub.Shutdown()
	hub.WaitForShutdown()
	const cut = 2 * time.Second // 50 to 100 attempts
	reports := embedded.LeafErrorReports(every)
	cutAt := time.Now()
	for time.Since(cutAt) < cut {
		attempts := int(time.Since(cutAt)/every) + 1
		bound := 1 + attempts/reports
		if got := linesWith(&out, "Error trying to connect as leafnode"); len(got) > bound {
			t.Fatalf("%v into the cut, the site said it could not reach the hub %d times, want at most %d (1 in %d attempts):\n%s",
				time.Since(cutAt).Round(time.Millisecond), len(got), bound, reports, strings.Join(got, ""))
		}
		time.Sleep(20 * time.Millisecond)
	}
	said := linesWith(&out, "Error trying to connect as leafnode")
	if len(said) != 1 || !strings.Contains(said[0], "level=ERROR") || !strings.Contains(said[0], "(attempt 1)") {
		t.Fatalf("the cut was said %d times, want once, at ERROR, at its first attempt:\n%s", len(said), strings.Join(said, ""))
	}
}

// A site whose hub refuses its leaf user (its password is an old hub's) says what to do once,
// at ERROR, naming the file to copy and never the password; the server's refusals, one every
// ReconnectEvery, go to debug.
func TestSiteRefusedByItsHubSaysWhatToDo(t *testing.T) {
	const password = "old-hubs-s3cret"
	var out logtest.Buffer
	startLeafPair(t, "the-hubs-new-password", password, 20*time.Millisecond, &out, slog.LevelDebug)
	deadline := time.Now().Add(10 * time.Second)
	for len(linesWith(&out, "Authorization Violation")) < 5 {
		if time.Now().After(deadline) {
			t.Fatalf("the hub did not refuse the site 5 times within 10s; its log:\n%s", out.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	for _, l := range linesWith(&out, "Authorization Violation") {
		if !strings.Contains(l, "level=DEBUG") {
			t.Errorf("a refusal the site can do nothing about at once is not at debug: %s", l)
		}
	}
	said := linesWith(&out, "the hub refused this site's leaf user")
	if len(said) != 1 {
		t.Fatalf("the refusal was said %d times, want once:\n%s", len(said), out.String())
	}
	for _, want := range []string{"level=ERROR", "leaf-paris", "--hub-context", "DATA/nats/leaf-paris.json again", "refusals=1"} {
		if !strings.Contains(said[0], want) {
			t.Errorf("the refusal's line does not say %q: %s", want, said[0])
		}
	}
	if strings.Contains(out.String(), password) {
		t.Errorf("the site's log holds its leaf password:\n%s", out.String())
	}
}
