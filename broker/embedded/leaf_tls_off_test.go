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

// A site keeps asking for TLS once its hub asked it to (nats-server keeps it for the remote):
// after the hub turns leaf TLS off, the site cannot reach it until restarted, and says so, as
// docs/operations.md (Edge sites) tells.
func TestSiteKeepsAskingTLSAfterItsHubTurnedItOff(t *testing.T) {
	pki := writeLeafPKI(t, t.TempDir())
	hub, port := startPlainHub(t, &pki, &server.User{Username: "leaf-paris", Password: "pw"})
	var out logtest.Buffer
	site, err := embedded.Start(embedded.Options{Port: -1, StoreDir: t.TempDir(), Name: "paris", Domain: "paris",
		LeafRemote: &embedded.LeafRemoteOptions{URLs: []string{fmt.Sprintf("nats-leaf://127.0.0.1:%d", port)}, User: "leaf-paris",
			Password: "pw", CA: pki.CA, Local: broker.LeafLocal, ReconnectEvery: 20 * time.Millisecond}},
		slog.New(slog.NewTextHandler(&out, &slog.HandlerOptions{Level: slog.LevelDebug})))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { site.Shutdown(); site.WaitForShutdown() })
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for !cond() {
			if time.Now().After(deadline) {
				t.Fatalf("not within 10s: %s; the site's log:\n%s", what, out.String())
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	waitFor("the site connected over TLS", func() bool { return site.NumLeafNodes() == 1 })
	hub.Shutdown()
	hub.WaitForShutdown()
	startPlainHubOn(t, port, &server.User{Username: "leaf-paris", Password: "pw"})
	waitFor("the site said its handshake failed at the hub without TLS", func() bool {
		return strings.Contains(errorsOf(&out), "the TLS handshake with the hub failed on the hub's side")
	})
	if site.NumLeafNodes() != 0 {
		t.Fatal("the site reached the hub without TLS: the docs' restart is not needed")
	}
}
