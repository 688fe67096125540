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
	out := siteRefusedThrice(t, "leaf-paris:"+password)

	warned := out.Line("the hub URL carries credentials")
	for _, want := range []string{"level=WARN", "on a command line (--hub)", "give them in --hub-context", "leaf-paris:" + redact.Mark + "@127.0.0.1"} {
		if !strings.Contains(warned, want) {
			t.Errorf("the warning does not say %q: %q", want, warned)
		}
	}
	said := errorsOf(out)
	if strings.Count(said, "level=ERROR") != 1 || !strings.Contains(said, "refused this site's leaf user leaf-paris, given in the hub URL") {
		t.Errorf("the refusal's ERROR does not name the URL's user, once:\n%s", said)
	}
	if strings.Contains(out.String(), password) {
		t.Errorf("the site's log holds the password of its hub URL:\n%s", out.String())
	}
}

// A token in the hub URL (nats-leaf://TOKEN@hub) is a secret as a whole: when the hub refuses
// it, the site's ERROR names no user. It named the token as the refused "leaf user", and told
// the operator to copy DATA/nats/TOKEN.json.
func TestSiteWithATokenInTheHubURLNamesNoUser(t *testing.T) {
	const token = "s3cret-leaf-token"
	out := siteRefusedThrice(t, token)
	if warned := out.Line("the hub URL carries credentials"); !strings.Contains(warned, "nats-leaf://"+redact.Mark+"@127.0.0.1") {
		t.Errorf("the warning does not show the URL with its token hidden: %q", warned)
	}
	said := errorsOf(out)
	if strings.Count(said, "level=ERROR") != 1 || !strings.Contains(said, "the hub refused this site's leaf connection") {
		t.Errorf("the refusal's ERROR is not the one for a site that gave no user, once:\n%s", said)
	}
	if strings.Contains(out.String(), token) {
		t.Errorf("the site's log holds the token of its hub URL:\n%s", out.String())
	}
}

// siteRefusedThrice starts site paris with userinfo (user:password, or a token) in its --hub
// URL, against a hub that refuses it, and returns the site's log once the hub refused it three
// times.
func siteRefusedThrice(t *testing.T, userinfo string) *logtest.Buffer {
	t.Helper()
	port := hubRefusingLeafUsers(t)
	out := &logtest.Buffer{}
	site, err := embedded.Start(embedded.Options{Port: -1, StoreDir: t.TempDir(), Name: "paris", Domain: "paris",
		LeafRemote: &embedded.LeafRemoteOptions{URLs: []string{fmt.Sprintf("nats-leaf://%s@127.0.0.1:%d", userinfo, port)},
			CredentialsFlag: "--hub", Local: broker.LeafLocal, ReconnectEvery: 20 * time.Millisecond}},
		slog.New(slog.NewTextHandler(out, &slog.HandlerOptions{Level: slog.LevelDebug})))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { site.Shutdown(); site.WaitForShutdown() })
	deadline := time.Now().Add(10 * time.Second)
	for len(linesWith(out, "Authorization Violation")) < 3 {
		if time.Now().After(deadline) {
			t.Fatalf("the hub did not refuse the site 3 times within 10s; its log:\n%s", out.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	return out
}

// hubRefusingLeafUsers starts a hub whose only leaf user is leaf-paris, with a password no
// site here gives, and returns its leaf port.
func hubRefusingLeafUsers(t *testing.T) int {
	t.Helper()
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
	return listen.Port
}

// The start warns of a hub URL's credentials by where the URL came from: a command line
// (--hub), which ps shows every user, or elsewhere (CORRAL_HUB, a config file's key), where it
// said "on a command line" too; a URL without any is not. (A token with a '?' in it, which
// url.Parse takes for the end of the host, is refused: TestLeafOptionsRefused.)
func TestHubURLCredentialsWarnedOfByWhereTheyCameFrom(t *testing.T) {
	for _, c := range []struct {
		url, from string
		want      []string // the warning's words; none: no warning
	}{
		{"nats-leaf://leaf-paris:s3cret-pw@127.0.0.1:1", "--hub",
			[]string{"on a command line (--hub) other users of this machine can read them (ps)", "leaf-paris:" + redact.Mark + "@127.0.0.1:1"}},
		{"nats-leaf://leaf-paris:s3cret-pw@127.0.0.1:1", "CORRAL_HUB",
			[]string{"the hub URL from CORRAL_HUB carries credentials: a URL is no place for a secret", "give them in --hub-context",
				"leaf-paris:" + redact.Mark + "@127.0.0.1:1"}},
		{"nats-leaf://127.0.0.1:1", "", nil},
	} {
		var out logtest.Buffer
		site, err := embedded.Start(embedded.Options{Port: -1, StoreDir: t.TempDir(), Name: "paris", Domain: "paris",
			LeafRemote: &embedded.LeafRemoteOptions{URLs: []string{c.url}, CredentialsFlag: c.from, Local: broker.LeafLocal}},
			slog.New(slog.NewTextHandler(&out, &slog.HandlerOptions{Level: slog.LevelInfo})))
		if err != nil {
			t.Fatal(err)
		}
		site.Shutdown()
		site.WaitForShutdown()
		warned := out.Line("carries credentials")
		switch {
		case c.want == nil && warned != "":
			t.Errorf("%s: warned of credentials it has none of: %q", c.url, warned)
		case c.want != nil && !strings.Contains(warned, "level=WARN"):
			t.Errorf("%s from %s: no warning of its credentials:\n%s", c.url, c.from, out.String())
		}
		for _, w := range c.want {
			if !strings.Contains(warned, w) {
				t.Errorf("%s from %s: the warning does not say %q: %q", c.url, c.from, w, warned)
			}
		}
		if c.from != "--hub" && strings.Contains(warned, "(ps)") {
			t.Errorf("%s from %s: the warning says a command line shows it: %q", c.url, c.from, warned)
		}
		if strings.Contains(warned, "s3cret") {
			t.Errorf("%s: the warning holds its secret: %q", c.url, warned)
		}
	}
}
