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

// startTLSSite starts site paris as leaf-paris with password pw and ca (none: "") against the
// hub's leaf port, trying again every 20ms, logging at debug to out; it returns once the
// site's server has said 5 handshakes failed.
func startTLSSite(t *testing.T, port int, ca string, out *logtest.Buffer) {
	t.Helper()
	site, err := embedded.Start(embedded.Options{Port: -1, StoreDir: t.TempDir(), Name: "paris", Domain: "paris",
		LeafRemote: &embedded.LeafRemoteOptions{URLs: []string{fmt.Sprintf("nats-leaf://127.0.0.1:%d", port)}, User: "leaf-paris",
			Password: "pw", CA: ca, Local: broker.LeafLocal, ReconnectEvery: 20 * time.Millisecond}},
		slog.New(slog.NewTextHandler(out, &slog.HandlerOptions{Level: slog.LevelDebug})))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { site.Shutdown(); site.WaitForShutdown() })
	deadline := time.Now().Add(10 * time.Second)
	for len(linesWith(out, "Leafnode connection closed: TLS Handshake Failure")) < 5 {
		if time.Now().After(deadline) {
			t.Fatalf("the site's handshake did not fail 5 times within 10s (leaf connections %d); its log:\n%s", site.NumLeafNodes(), out.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// errorsOf are the ERROR lines of out.
func errorsOf(out *logtest.Buffer) string { return strings.Join(linesWith(out, "level=ERROR"), "") }

// A site that asks for TLS (a ca in its --hub-context) of a hub whose leaf port takes none
// failed for ever and said nothing: nats-server tells it at notice only. It says so once, at
// ERROR, with what to do; the hub, which sees a connection that gave no user, names TLS too.
func TestSiteAskingTLSOfAHubWithoutItSaysSo(t *testing.T) {
	perms, err := broker.LeafPermissions("paris")
	if err != nil {
		t.Fatal(err)
	}
	var hubOut, siteOut logtest.Buffer
	listen := &embedded.LeafListenOptions{Port: -1}
	hub, err := embedded.Start(embedded.Options{Port: -1, StoreDir: t.TempDir(), Name: "hub", LeafListen: listen,
		Users: []embedded.User{{Name: "leaf-paris", Password: "pw", Permissions: embedded.Permissions(perms), Leaf: true}}},
		slog.New(slog.NewTextHandler(&hubOut, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { hub.Shutdown(); hub.WaitForShutdown() })
	startTLSSite(t, listen.Port, writeLeafPKI(t, t.TempDir()).CA, &siteOut)

	said := errorsOf(&siteOut)
	if n := strings.Count(said, "level=ERROR"); n != 1 || !strings.Contains(said, "the TLS handshake with the hub failed on the hub's side") ||
		!strings.Contains(said, "drop ca from the site's context") || !strings.Contains(said, "failures=1") {
		t.Fatalf("the site said %d errors, want one that its handshake failed at the hub, with what to do:\n%s", n, siteOut.String())
	}
	if strings.Contains(siteOut.String(), "pw\"") || strings.Contains(siteOut.String(), "=pw ") {
		t.Errorf("the site's log holds its leaf password:\n%s", siteOut.String())
	}
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(hubOut.String(), "a site that asks for TLS") {
		if time.Now().After(deadline) {
			t.Fatalf("the hub did not name TLS in its refusal within 10s; its log:\n%s", hubOut.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A site without the CA that signed its hub's leaf certificate logged nats-server's handshake
// error at every attempt, every second; it says it once, with the reason and what to do.
func TestSiteDistrustingItsHubsCertificateSaysSoOnce(t *testing.T) {
	pki := writeLeafPKI(t, t.TempDir())
	_, port := startPlainHub(t, &pki, &server.User{Username: "leaf-paris", Password: "pw"})
	var out logtest.Buffer
	startTLSSite(t, port, "", &out)

	said := errorsOf(&out)
	if n := strings.Count(said, "level=ERROR"); n != 1 || !strings.Contains(said, "the TLS handshake with the hub failed: tls: failed to verify certificate") ||
		!strings.Contains(said, "give that CA as ca in --hub-context") {
		t.Fatalf("the site said %d errors, want one with the handshake's reason and what to do:\n%s", n, out.String())
	}
	for _, l := range linesWith(&out, "TLS leafnode handshake error") {
		if !strings.Contains(l, "level=DEBUG") {
			t.Errorf("nats-server's own handshake error is not at debug: %s", l)
		}
	}
}
