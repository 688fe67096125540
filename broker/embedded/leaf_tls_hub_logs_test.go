package embedded_test

import (
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/broker/embedded"
	"github.com/corral-farm/corral/internal/logtest"
)

// A Corral hub whose leaf port takes TLS logged nats-server's handshake error at ERROR at every
// attempt of a site that lacks the CA of its certificate, every second or two for as long as
// the site runs (the site's side says it once a minute, leaftls.go). It says it once per remote
// address, at ERROR, with what to do; the server's own lines go to debug. The window is the
// site's first 5 failed handshakes, counted from the hub's own lines.
func TestHubSaysOnceASiteFailedItsTLSHandshake(t *testing.T) {
	perms, err := broker.LeafPermissions("paris")
	if err != nil {
		t.Fatal(err)
	}
	pki := writeLeafPKI(t, t.TempDir())
	var hubOut, siteOut logtest.Buffer
	listen := &embedded.LeafListenOptions{Port: -1}
	hub, err := embedded.Start(embedded.Options{Port: -1, StoreDir: t.TempDir(), Name: "hub", LeafListen: listen,
		TLS:   &embedded.TLSOptions{Cert: pki.Cert, Key: pki.Key},
		Users: []embedded.User{{Name: "leaf-paris", Password: "pw", Permissions: embedded.Permissions(perms), Leaf: true}}},
		slog.New(slog.NewTextHandler(&hubOut, &slog.HandlerOptions{Level: slog.LevelDebug})))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { hub.Shutdown(); hub.WaitForShutdown() })
	startTLSSite(t, listen.Port, "", &siteOut) // no CA: the site cannot trust the hub's certificate

	const failed = "TLS leafnode handshake error"
	deadline := time.Now().Add(10 * time.Second)
	for len(linesWith(&hubOut, failed)) < 5 {
		if time.Now().After(deadline) {
			t.Fatalf("the hub did not see 5 failed handshakes within 10s; its log:\n%s", hubOut.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	for _, l := range linesWith(&hubOut, failed) {
		if !strings.Contains(l, "level=DEBUG") {
			t.Errorf("nats-server's handshake error at the hub is not at debug: %s", l)
		}
	}
	errs := linesWith(&hubOut, "level=ERROR")
	if len(errs) != 1 {
		t.Fatalf("the hub logged %d ERROR lines over 5 failed handshakes of one site, want one (corral's):\n%s", len(errs), strings.Join(errs, ""))
	}
	for _, want := range []string{"TLS handshake with this hub's leaf port failed", "bad certificate", "from=127.0.0.1 ",
		"ca in its --hub-context", "failures=1", "again_in=1m0s"} {
		if !strings.Contains(errs[0], want) {
			t.Errorf("the hub's line does not say %q: %s", want, errs[0])
		}
	}
}
