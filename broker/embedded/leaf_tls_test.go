package embedded_test

import (
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/broker/embedded"
	"github.com/corral-farm/corral/internal/logtest"
)

// A site reaches a hub whose leaf port takes TLS with a certificate of a private CA, given as
// the CA of its --hub-context (LeafRemoteOptions.CA), and messages cross the link.
func TestSiteReachesATLSHubThroughItsPrivateCA(t *testing.T) {
	pki := writeLeafPKI(t, t.TempDir())
	hub, port := startPlainHub(t, &pki, &server.User{Username: "leaf-paris", Password: "pw"})
	var out logtest.Buffer
	site, err := embedded.Start(embedded.Options{Port: -1, StoreDir: t.TempDir(), Name: "paris", Domain: "paris",
		LeafRemote: &embedded.LeafRemoteOptions{URLs: []string{fmt.Sprintf("tls://127.0.0.1:%d", port)}, User: "leaf-paris",
			Password: "pw", CA: pki.CA, Local: broker.LeafLocal, ReconnectEvery: 50 * time.Millisecond}},
		slog.New(slog.NewTextHandler(&out, &slog.HandlerOptions{Level: slog.LevelDebug})))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { site.Shutdown(); site.WaitForShutdown() })

	atHub, err := nats.Connect(hub.ClientURL())
	if err != nil {
		t.Fatal(err)
	}
	defer atHub.Close()
	got, err := atHub.SubscribeSync("corral.v1.heartbeat.paris-1")
	if err != nil {
		t.Fatal(err)
	}
	if err := atHub.Flush(); err != nil {
		t.Fatal(err)
	}
	atSite, err := nats.Connect(site.ClientURL())
	if err != nil {
		t.Fatal(err)
	}
	defer atSite.Close()
	deadline := time.Now().Add(10 * time.Second)
	for {
		// The hub's interest reaches the site once the link is up: until then a message is lost.
		if err := atSite.Publish("corral.v1.heartbeat.paris-1", []byte("up")); err != nil {
			t.Fatal(err)
		}
		if _, err := got.NextMsg(50 * time.Millisecond); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no message crossed from the site to the TLS hub within 10s (site leaf connections: %d); the site's log:\n%s",
				site.NumLeafNodes(), out.String())
		}
	}
	if errs := linesWith(&out, "level=ERROR"); len(errs) > 0 {
		t.Errorf("the site logged errors on its way to the hub:\n%s", strings.Join(errs, ""))
	}
}
