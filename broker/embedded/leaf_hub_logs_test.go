package embedded_test

import (
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/broker/embedded"
	"github.com/corral-farm/corral/internal/logtest"
)

// A hub that refuses a site's leaf user (the site's password is an old hub's) says so once, at
// ERROR, naming the site and the file to copy again, never the password; nats-server's own
// "authentication error", one at each of the site's attempts, goes to debug. The window is the
// site's first 5 refusals, counted from the hub's debug lines.
func TestHubRefusingASiteSaysWhatToDo(t *testing.T) {
	const password = "old-hubs-s3cret"
	var out logtest.Buffer
	perms, err := broker.LeafPermissions("paris")
	if err != nil {
		t.Fatal(err)
	}
	leaf := embedded.User{Name: "leaf-paris", Password: "the-hubs-new-password", Permissions: embedded.Permissions(perms), Leaf: true}
	listen := &embedded.LeafListenOptions{Port: -1}
	hub, err := embedded.Start(embedded.Options{Port: -1, StoreDir: t.TempDir(), Name: "hub", Users: []embedded.User{leaf}, LeafListen: listen},
		slog.New(slog.NewTextHandler(&out, &slog.HandlerOptions{Level: slog.LevelDebug})))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { hub.Shutdown(); hub.WaitForShutdown() })
	site, err := embedded.Start(embedded.Options{Port: -1, StoreDir: t.TempDir(), Name: "paris", Domain: "paris",
		LeafRemote: &embedded.LeafRemoteOptions{URLs: []string{fmt.Sprintf("nats-leaf://127.0.0.1:%d", listen.Port)}, User: "leaf-paris",
			Password: password, Local: broker.LeafLocal, ReconnectEvery: 20 * time.Millisecond}},
		slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { site.Shutdown(); site.WaitForShutdown() })

	deadline := time.Now().Add(10 * time.Second)
	for len(linesWith(&out, "authentication error")) < 5 {
		if time.Now().After(deadline) {
			t.Fatalf("the hub did not refuse the site 5 times within 10s; its log:\n%s", out.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	for _, l := range linesWith(&out, "authentication error") {
		if !strings.Contains(l, "level=DEBUG") {
			t.Errorf("nats-server's refusal of a site is not at debug: %s", l)
		}
	}
	errs := linesWith(&out, "level=ERROR")
	if len(errs) != 1 {
		t.Fatalf("the hub logged %d ERROR lines over 5 refusals, want one (corral's):\n%s", len(errs), strings.Join(errs, ""))
	}
	for _, want := range []string{"site=paris", "leaf-paris", "the site's leaf credentials do not match",
		"copy DATA/nats/leaf-paris.json from the hub again", "refusals=1"} {
		if !strings.Contains(errs[0], want) {
			t.Errorf("the hub's refusal line does not say %q: %s", want, errs[0])
		}
	}
	if strings.Contains(out.String(), password) || strings.Contains(out.String(), "the-hubs-new-password") {
		t.Errorf("the hub's log holds a leaf password:\n%s", out.String())
	}
}
