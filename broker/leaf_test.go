package broker

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/nats-io/nats-server/v2/server"
)

// A site's leaf user: named after the site, limited to the site's own JetStream domain (or any
// site's, shared), and a leaf node only in the server configuration corral nats-auth writes.
func TestLeafUsers(t *testing.T) {
	users, err := SiteUsers([]string{"paris", AnyNode}, func(name string) (string, error) { return "pw-" + name, nil })
	if err != nil {
		t.Fatal(err)
	}
	if users[0].Name != "leaf-paris" || users[1].Name != "leaf" || UserName(RoleLeaf, "paris") != "leaf-paris" {
		t.Fatalf("leaf users %q and %q, UserName %q; want leaf-paris and leaf", users[0].Name, users[1].Name, UserName(RoleLeaf, "paris"))
	}
	for _, c := range []struct{ site, domainAPI string }{{"paris", "$JS.paris.API.>"}, {AnyNode, "$JS.*.API.>"}} {
		p, err := PermissionsFor(RoleLeaf, c.site)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(p.SubscribeAllow, c.domainAPI) || slices.Contains(p.SubscribeAllow, Heartbeats) || slices.Contains(p.PublishAllow, Events) {
			t.Errorf("site %s: takes %v, sends %v; want its domain's API in, no heartbeats in, no events out", c.site, p.SubscribeAllow, p.PublishAllow)
		}
	}
	for _, bad := range []string{"", "par.is", "a b", strings.Repeat("x", 65)} {
		if _, err := SiteUsers([]string{bad}, func(string) (string, error) { return "pw", nil }); err == nil {
			t.Errorf("site %q accepted", bad)
		}
	}
	conf, err := ServerAuthConfig(users)
	if err != nil {
		t.Fatal(err)
	}
	opts := parseConfig(t, conf)
	for _, u := range opts.Users {
		if _, ok := u.AllowedConnectionTypes["LEAFNODE"]; !ok || len(u.AllowedConnectionTypes) != 1 {
			t.Errorf("user %s may connect as %v, want a leaf node only", u.Username, u.AllowedConnectionTypes)
		}
	}
}

// A site's leafnodes block is read back by nats-server as written: the hub's URLs with the
// leaf user and its password, whatever characters that has, and LeafLocal kept off the link.
func TestLeafRemoteConfig(t *testing.T) {
	u := User{Name: "leaf-paris", Password: `p@ss:w/rd"\ é`, Role: RoleLeaf, Node: "paris"}
	conf, err := LeafRemoteConfig([]string{"nats-leaf://hub-a:7422", " tls://hub-b:7422 "}, u)
	if err != nil {
		t.Fatal(err)
	}
	opts := parseConfig(t, conf)
	r := opts.LeafNode.Remotes[0]
	if len(r.URLs) != 2 || r.URLs[1].Host != "hub-b:7422" || !slices.Equal(r.DenyImports, LeafLocal) || !slices.Equal(r.DenyExports, LeafLocal) {
		t.Fatalf("remote %+v: want both hubs and LeafLocal denied both ways", r)
	}
	for _, l := range r.URLs {
		if pw, _ := l.User.Password(); l.User.Username() != u.Name || pw != u.Password {
			t.Errorf("hub URL %s: user %q password %q, want %q %q", l.Redacted(), l.User.Username(), pw, u.Name, u.Password)
		}
	}
	for _, bad := range [][]string{nil, {"hub:7422"}, {"nats-leaf://"}} {
		if _, err := LeafRemoteConfig(bad, u); err == nil {
			t.Errorf("hub URLs %q accepted", bad)
		}
	}
}

// Whatever the hub URL and the password, LeafRemoteConfig refuses them or writes a block that
// nats-server reads back with exactly that password: nothing in them can add to the
// configuration.
func FuzzLeafRemoteConfig(f *testing.F) {
	f.Add("nats-leaf://hub:7422", "secret")
	f.Add("tls://hub.example.com:7422", `a"b\c}`)
	f.Add("nats-leaf://hub:7422/\"]\n}\nauthorization{", "x\ny")
	f.Fuzz(func(t *testing.T, hub, password string) {
		conf, err := LeafRemoteConfig([]string{hub}, User{Name: "leaf-s", Password: password, Role: RoleLeaf, Node: "s"})
		if err != nil {
			return
		}
		opts, err := readConfig(t, conf)
		if err != nil {
			if strings.ContainsAny(password, "\x00") || !utf8Clean(hub+password) {
				return // nats-server's parser takes no NUL or invalid UTF-8; the server refuses the file
			}
			t.Fatalf("nats-server refuses the block for %q: %v\n%s", hub, err, conf)
		}
		if len(opts.LeafNode.Remotes) != 1 || len(opts.LeafNode.Remotes[0].URLs) != 1 || len(opts.Users) != 0 {
			t.Fatalf("block for %q read as %d remotes, %d users", hub, len(opts.LeafNode.Remotes), len(opts.Users))
		}
		got := opts.LeafNode.Remotes[0].URLs[0]
		if pw, _ := got.User.Password(); pw != password || got.User.Username() != "leaf-s" {
			t.Fatalf("password %q read back as %q", password, pw)
		}
	})
}

func utf8Clean(s string) bool { return strings.ToValidUTF8(s, "\uFFFD") == s }

func parseConfig(t *testing.T, conf string) *server.Options {
	t.Helper()
	opts, err := readConfig(t, conf)
	if err != nil {
		t.Fatalf("nats-server refuses %s: %v", conf, err)
	}
	return opts
}

func readConfig(t *testing.T, conf string) (*server.Options, error) {
	file := filepath.Join(t.TempDir(), "nats.conf")
	if err := os.WriteFile(file, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	return server.ProcessConfigFile(file)
}

// A site declared with its nodes (corral nats-auth --site paris=paris-1) has a leaf user that
// takes requests for, and speaks as, those nodes only; a shared user, a wildcard or a bad node
// id cannot be limited so and is refused, and so is a leaf user of a site SiteAuthConfig was
// not told the nodes of (it would take every node's requests).
func TestSiteLeafUserTakesItsNodesOnly(t *testing.T) {
	p, err := LeafPermissions("paris", "paris-1")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(p.SubscribeAllow, Prefix+".node.paris-1.*") || slices.Contains(p.SubscribeAllow, Prefix+".node.*.*") ||
		!slices.Contains(p.PublishAllow, Prefix+".heartbeat.paris-1") || slices.ContainsFunc(p.PublishAllow, func(s string) bool {
		return s == Heartbeats || s == Progresses || s == Frames
	}) {
		t.Errorf("paris=paris-1 takes %v, sends %v; want paris-1's requests in, paris-1's beats out, no other node's", p.SubscribeAllow, p.PublishAllow)
	}
	for _, bad := range [][]string{{AnyNode, "n1"}, {"paris", AnyNode}, {"paris", "a.b"}, {"paris", ""}} {
		if _, err := LeafPermissions(bad[0], bad[1:]...); err == nil {
			t.Errorf("site %s with nodes %q accepted", bad[0], bad[1:])
		}
	}
	users, err := SiteUsers([]string{"paris", "lyon"}, func(name string) (string, error) { return "pw-" + name, nil })
	if err != nil {
		t.Fatal(err)
	}
	if _, err := SiteAuthConfig(users, []Site{{Name: "paris", Nodes: []string{"paris-1"}}}); err == nil || !strings.Contains(err.Error(), `site "lyon" declares no nodes`) {
		t.Errorf("lyon without nodes: %v; want it refused", err)
	}
	conf, err := SiteAuthConfig(users, []Site{{Name: "paris", Nodes: []string{"paris-1"}}, {Name: "lyon", Nodes: []string{"lyon-1", "lyon-2"}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range parseConfig(t, conf).Users {
		if u.Username == "leaf-lyon" && !slices.Equal(u.Permissions.Subscribe.Allow[:2], []string{Prefix + ".node.lyon-1.*", Prefix + ".node.lyon-2.*"}) {
			t.Errorf("leaf-lyon takes %v; want lyon-1's and lyon-2's requests", u.Permissions.Subscribe.Allow)
		}
	}
}
