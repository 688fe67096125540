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
	"github.com/corral-farm/corral/internal/redact"
)

// A site given its leaf user and password in the hub URL on its command line (--hub) is
// warned, the URL shown redacted; when the hub refuses that password, the site's ERROR names
// the user the URL gave: it said no user was given.
func TestSiteWithItsPasswordInTheHubURL(t *testing.T) {
	const password = "old-s3cret-pw"
	perms, err := broker.LeafPermissions("paris")
	if err != nil {
		t.Fatal(err)
	}
	listen := &embedded.LeafListenOptions{Port: -1}
	hub, err := embedded.Start(embedded.Options{Port: -1, StoreDir: t.TempDir(), Name: "hub", LeafListen: listen,
		Users: []embedded.User{{Name: "leaf-paris", Password: "the-hubs-pw", Permissions: embedded.Permissions(perms), Leaf: true}}},
		slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { hub.Shutdown(); hub.WaitForShutdown() })
	var out logtest.Buffer
	site, err := embedded.Start(embedded.Options{Port: -1, StoreDir: t.TempDir(), Name: "paris", Domain: "paris",
		LeafRemote: &embedded.LeafRemoteOptions{URLs: []string{fmt.Sprintf("nats-leaf://leaf-paris:%s@127.0.0.1:%d", password, listen.Port)},
			CredentialsFlag: "--hub", Local: broker.LeafLocal, ReconnectEvery: 20 * time.Millisecond}},
		slog.New(slog.NewTextHandler(&out, &slog.HandlerOptions{Level: slog.LevelDebug})))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { site.Shutdown(); site.WaitForShutdown() })
	deadline := time.Now().Add(10 * time.Second)
	for len(linesWith(&out, "Authorization Violation")) < 3 {
		if time.Now().After(deadline) {
			t.Fatalf("the hub did not refuse the site 3 times within 10s; its log:\n%s", out.String())
		}
		time.Sleep(10 * time.Millisecond)
	}

	warned := out.Line("the hub URL carries credentials")
	for _, want := range []string{"level=WARN", "on a command line (--hub)", "give them in --hub-context", "leaf-paris:" + redact.Mark + "@127.0.0.1"} {
		if !strings.Contains(warned, want) {
			t.Errorf("the warning does not say %q: %q", want, warned)
		}
	}
	said := errorsOf(&out)
	if strings.Count(said, "level=ERROR") != 1 || !strings.Contains(said, "refused this site's leaf user leaf-paris, given in the hub URL") {
		t.Errorf("the refusal's ERROR does not name the URL's user, once:\n%s", said)
	}
	if strings.Contains(out.String(), password) {
		t.Errorf("the site's log holds the password of its hub URL:\n%s", out.String())
	}
}
