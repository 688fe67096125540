package chart_test

// A hub's edge sites scoped to their nodes: hub.sites takes plain names (the leaf user "leaf"
// shared by every site, as before) and {name, nodes} (a leaf user leaf-<name> of the site's own,
// limited to its nodes as corral nats-auth --site NAME=NODE,... limits it). The chart builds
// those permissions from files/nats-site-permissions.json, which make chart-assets writes from
// broker.LeafPermissions.

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"github.com/corral-farm/corral/broker"
)

// sitePermissionsFile is the chart's copy of a scoped site's leaf permissions, for a stand-in
// site and node that the templates replace.
const sitePermissionsFile = "files/nats-site-permissions.json"

// The stand-ins: tokens nats-server and broker take, found in no Corral subject.
const (
	standInSite = "__site__"
	standInNode = "__node__"
)

type sitePermissionsDoc struct {
	About       string          `json:"about"`
	Site        string          `json:"site"`
	Node        string          `json:"node"`
	Permissions natsPermissions `json:"permissions"`
}

// wantSitePermissions is what files/nats-site-permissions.json must hold:
// broker.LeafPermissions(standInSite, standInNode). The templates know allow lists only.
func wantSitePermissions(t *testing.T) []byte {
	t.Helper()
	p, err := broker.LeafPermissions(standInSite, standInNode)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.PublishDeny)+len(p.SubscribeDeny) > 0 || p.AllowResponses {
		t.Fatalf("broker.LeafPermissions of a site has deny lists or responses: teach corral.nats.leafUsers (_helpers.tpl) them")
	}
	plain, _ := broker.LeafPermissions(broker.AnyNode)
	for _, s := range slices.Concat(plain.PublishAllow, plain.SubscribeAllow) {
		if strings.Contains(s, standInSite) || strings.Contains(s, standInNode) {
			t.Fatalf("subject %s holds a stand-in (%s, %s): choose others", s, standInSite, standInNode)
		}
	}
	doc := sitePermissionsDoc{About: "Made by make chart-assets from broker.LeafPermissions (broker/leaf.go) for a stand-in site and node; " +
		"do not edit: helm/corral/sites_chart_test.go fails when it differs.", Site: standInSite, Node: standInNode,
		Permissions: natsPermissions{Publish: &natsSubjects{Allow: p.PublishAllow}, Subscribe: &natsSubjects{Allow: p.SubscribeAllow}}}
	return assetJSON(t, doc)
}

// TestChartSitePermissionsFile: the chart's scoped site permissions are broker/leaf.go's.
// go test ./helm/corral -run TestChartSitePermissionsFile -update-nats-permissions rewrites them.
func TestChartSitePermissionsFile(t *testing.T) {
	checkAsset(t, sitePermissionsFile, wantSitePermissions(t), "broker.LeafPermissions")
}

// sitesValues writes a values file with these hub.sites (plain names and {name, nodes}).
func sitesValues(t *testing.T, name string, sites ...any) valuesCase {
	t.Helper()
	b, err := json.Marshal(map[string]any{"hub": map[string]any{"sites": sites}})
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), name+".yaml")
	if err := os.WriteFile(file, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return valuesCase{name: name, files: []string{file}}
}

// scoped is a site given with its nodes.
func scoped(name string, nodes ...string) map[string]any {
	return map[string]any{"name": name, "nodes": append([]string{}, nodes...)}
}

// hubNATS parses the hub's rendered NATS configuration with the environment its StatefulSet
// gives the server, the Secret's passwords in it.
func hubNATS(t *testing.T, m manifest) *server.Options {
	t.Helper()
	sts := m.must(t, "StatefulSet", fullname+"-nats")
	vars, _ := env(container(t, dig(sts, "spec", "template", "spec").(object), "nats"))
	environ := map[string]string{"SERVER_NAME": fullname + "-nats-0"}
	for k, v := range vars {
		if ref, ok := strings.CutPrefix(v, "secret:"+natsAuthSecret+"/"); ok {
			environ[k] = string(m.secretData(t, natsAuthSecret, ref))
		}
	}
	return natsConfig(t, m, environ)
}

func hubUser(t *testing.T, opts *server.Options, name string) *server.User {
	t.Helper()
	for _, u := range opts.Users {
		if u.Username == name {
			return u
		}
	}
	t.Fatalf("the hub's NATS has no user %s", name)
	return nil
}

// leafUsers are the names of the hub's leaf users.
func leafUsers(opts *server.Options) []string {
	var out []string
	for _, u := range opts.Users {
		if _, ok := u.AllowedConnectionTypes["LEAFNODE"]; ok {
			out = append(out, u.Username)
		}
	}
	return out
}

// gatewayArgs are the gateway container's arguments, in order.
func gatewayArgs(t *testing.T, m manifest) []string {
	t.Helper()
	_, _, gw := gateway(t, m)
	var args []string
	for _, a := range gw["args"].([]any) {
		args = append(args, str(a))
	}
	return args
}

// siteArgs are the gateway's --sites and --site-nodes arguments.
func siteArgs(args []string) []string {
	var out []string
	for _, a := range args {
		if strings.HasPrefix(a, "--sites=") || strings.HasPrefix(a, "--site-nodes=") {
			out = append(out, a)
		}
	}
	return out
}

// natsAuthLeafUsers runs corral nats-auth --site for sites and parses the server configuration
// it writes.
func natsAuthLeafUsers(t *testing.T, sites ...string) *server.Options {
	t.Helper()
	bin, err := corralBin()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "auth")
	args := []string{"nats-auth", "--dir", dir, "--node", "*"}
	for _, s := range sites {
		args = append(args, "--site", s)
	}
	if out, err := exec.CommandContext(t.Context(), bin, args...).CombinedOutput(); err != nil {
		t.Fatalf("corral %v: %v\n%s", args, err, out)
	}
	opts, err := server.ProcessConfigFile(filepath.Join(dir, "nats-server-auth.conf"))
	if err != nil {
		t.Fatalf("nats-auth's server configuration: %v", err)
	}
	return opts
}

// TestChartSitesByNameAsBefore: plain site names keep the one leaf user "leaf" shared by every
// site (broker.LeafPermissions without nodes), its Secret key, and the gateways' --sites alone.
func TestChartSitesByNameAsBefore(t *testing.T) {
	m := render(t, valuesCase{name: "plain", sets: []string{"hub.sites={a,b}"}})
	opts := hubNATS(t, m)
	if got := leafUsers(opts); !slices.Equal(got, []string{"leaf"}) {
		t.Fatalf("leaf users %v, want the shared leaf alone", got)
	}
	want, _ := broker.LeafPermissions(broker.AnyNode)
	if err := samePermissions(hubUser(t, opts, "leaf").Permissions, &server.Permissions{
		Publish: &server.SubjectPermission{Allow: want.PublishAllow}, Subscribe: &server.SubjectPermission{Allow: want.SubscribeAllow}}); err != nil {
		t.Errorf("leaf: %v", err)
	}
	if got := keys(dig(m.must(t, "Secret", natsAuthSecret), "data").(object)); !slices.Contains(got, "leaf") || slices.ContainsFunc(got, func(k string) bool { return strings.HasPrefix(k, "leaf-") }) {
		t.Errorf("NATS auth Secret keys %v, want leaf and no leaf-<site>", got)
	}
	if got := siteArgs(gatewayArgs(t, m)); !slices.Equal(got, []string{"--sites=a,b"}) {
		t.Errorf("gateway site args %q, want --sites=a,b alone", got)
	}
	if got := str(dig(m.must(t, "ConfigMap", fullname+"-nats-config"), "data", "nats.conf")); !strings.Contains(got, "# The edge sites (a, b) connect here") {
		t.Errorf("nats.conf does not name the sites as before:\n%s", got)
	}
}

// TestChartSiteLeafUsersAreNATSAuths: a site given with its nodes gets a leaf user of its own,
// with the very permissions corral nats-auth --site NAME=NODE,... gives it, a password of its
// own in the Secret, and the gateways --site-nodes; a plain name beside it keeps the shared one.
func TestChartSiteLeafUsersAreNATSAuths(t *testing.T) {
	m := render(t, sitesValues(t, "mixed", "lab-old", scoped("lab-paris", "paris-1", "paris-2"), scoped("lab_tokyo", "tokyo-1")))
	opts := hubNATS(t, m)
	if got := leafUsers(opts); !slices.Equal(got, []string{"leaf", "leaf-lab-paris", "leaf-lab_tokyo"}) {
		t.Fatalf("leaf users %v, want leaf, leaf-lab-paris, leaf-lab_tokyo", got)
	}
	cli := natsAuthLeafUsers(t, "lab-paris=paris-1,paris-2", "lab_tokyo=tokyo-1")
	for _, name := range []string{"leaf-lab-paris", "leaf-lab_tokyo"} {
		chart, want := hubUser(t, opts, name), hubUser(t, cli, name)
		if err := samePermissions(chart.Permissions, want.Permissions); err != nil {
			t.Errorf("%s: the chart's permissions differ from corral nats-auth --site's: %v", name, err)
		}
		if !maps.Equal(chart.AllowedConnectionTypes, want.AllowedConnectionTypes) {
			t.Errorf("%s: connection types %v, nats-auth's %v", name, chart.AllowedConnectionTypes, want.AllowedConnectionTypes)
		}
		if pw := string(m.secretData(t, natsAuthSecret, name)); chart.Password != pw || len(pw) < 32 {
			t.Errorf("%s: password not the Secret's key %s", name, name)
		}
	}
	if hubUser(t, opts, "leaf-lab-paris").Password == hubUser(t, opts, "leaf").Password {
		t.Error("leaf-lab-paris has the shared leaf user's password")
	}
	want := []string{"--sites=lab-old,lab-paris,lab_tokyo", "--site-nodes=lab-paris=paris-1,paris-2", "--site-nodes=lab_tokyo=tokyo-1"}
	if got := siteArgs(gatewayArgs(t, m)); !slices.Equal(got, want) {
		t.Errorf("gateway site args %q, want %q", got, want)
	}

	validate(t, sitesValues(t, "mixed", "lab-old", scoped("lab-paris", "paris-1", "paris-2")))

	// A Secret of one's own needs each leaf user's key.
	own := render(t, valuesCase{name: "mixed-own-secret", files: sitesValues(t, "mixed", "lab-old", scoped("lab-paris", "paris-1")).files,
		sets: []string{"nats.bundled.auth.existingSecret=mynats"}})
	if got := secretKeysUsed(own, "mynats"); !slices.Contains(got, "leaf") || !slices.Contains(got, "leaf-lab-paris") {
		t.Errorf("with a Secret of one's own the NATS reads keys %v, want leaf and leaf-lab-paris among them", got)
	}
}

// TestChartScopedSiteTakesOnlyItsNodes runs the hub's and a site's NATS from the chart: the site
// joins as its own leaf user (site.hub.user leaf-<name>, its password from the hub's Secret key
// of that name) and takes the hub's requests for its nodes, not another site's.
func TestChartScopedSiteTakesOnlyItsNodes(t *testing.T) {
	hub := render(t, sitesValues(t, "hub", scoped("lab-paris", "paris-1"), scoped("lab-tokyo", "tokyo-1")))
	hubOpts := hubNATS(t, hub)
	hubServer := runServer(t, hubOpts)
	password := string(hub.secretData(t, natsAuthSecret, "leaf-lab-paris"))

	site := render(t, example(t, "site")) // its user leaf-lab-paris
	sts := site.must(t, "StatefulSet", fullname+"-nats")
	vars, _ := env(container(t, dig(sts, "spec", "template", "spec").(object), "nats"))
	if vars["NATS_LEAF_PASSWORD"] != "secret:corral-hub-leaf/leaf-lab-paris" ||
		vars["NATS_LEAF_URL_0"] != "nats-leaf://leaf-lab-paris:$(NATS_LEAF_PASSWORD)@hub.example.com:7422" {
		t.Errorf("site leaf password %q, URL %q: want the user leaf-lab-paris and its key", vars["NATS_LEAF_PASSWORD"], vars["NATS_LEAF_URL_0"])
	}
	hubLeaf := fmt.Sprintf("nats-leaf://leaf-lab-paris:%s@127.0.0.1:%d", url.PathEscape(password), hubOpts.LeafNode.Port)
	siteNATS := runServer(t, natsConfig(t, site, map[string]string{"SERVER_NAME": "lab-paris-" + fullname + "-nats-0", "NATS_LEAF_URL_0": hubLeaf}))
	deadline := time.Now().Add(10 * time.Second)
	for hubServer.NumLeafNodes() != 1 {
		if time.Now().After(deadline) {
			t.Fatal("the site's NATS did not join the hub's as leaf-lab-paris")
		}
		time.Sleep(10 * time.Millisecond)
	}

	nodePassword := string(site.secretData(t, natsAuthSecret, string(broker.RoleNode)))
	siteNode := connect(t, siteNATS.ClientURL(), broker.UserName(broker.RoleNode, broker.AnyNode), nodePassword)
	// As nodes do, each its own subjects; both into one channel, in the order they arrive.
	calls := make(chan *nats.Msg, 64)
	for _, n := range []string{"tokyo-1", "paris-1"} {
		if _, err := siteNode.ChanSubscribe(fmt.Sprintf(broker.NodeGroupT, n)+".*", calls); err != nil {
			t.Fatal(err)
		}
	}
	if err := siteNode.Flush(); err != nil {
		t.Fatal(err)
	}
	gwPassword := string(hub.secretData(t, natsAuthSecret, string(broker.RoleGateway)))
	hubGateway := connect(t, hubServer.ClientURL(), broker.UserName(broker.RoleGateway, ""), gwPassword)
	// Each round sends tokyo-1's call before paris-1's on one connection: the site sees them in
	// that order, so the first call it gets is paris-1's unless it may take tokyo-1's.
	deadline = time.Now().Add(10 * time.Second)
	for {
		_ = hubGateway.Publish(broker.Prefix+".node.tokyo-1.call", []byte("typed text for tokyo"))
		_ = hubGateway.Publish(broker.Prefix+".node.paris-1.call", []byte("for paris"))
		select {
		case m := <-calls:
			if m.Subject != broker.Prefix+".node.paris-1.call" {
				t.Fatalf("site lab-paris took %s (%q): its leaf user takes another site's node's requests", m.Subject, m.Data)
			}
			return
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatal("site lab-paris never got the hub's request for its own node paris-1")
		}
	}
}

// TestChartSitePasswordsKeptOnUpgrade: each site's leaf password is made once and read back
// from the installed Secret (lookup) on upgrade; a site new to the list gets one.
func TestChartSitePasswordsKeptOnUpgrade(t *testing.T) {
	first := render(t, sitesValues(t, "first", "lab-old", scoped("lab-paris", "paris-1")))
	installed := first.must(t, "Secret", natsAuthSecret)
	kubeconfig, requests := fakeKubernetes(t, map[string]object{natsAuthSecret: installed})
	upgrade := sitesValues(t, "upgrade", "lab-old", scoped("lab-paris", "paris-1", "paris-2"), scoped("lab-tokyo", "tokyo-1"))
	out, err := helmWithKubeconfig(t, kubeconfig, append([]string{"template", release, chartDir(t), "--namespace", namespace, "--dry-run=server"}, upgrade.args()...)...)
	if err != nil {
		t.Fatalf("helm template --dry-run=server: %v", err)
	}
	m := parse(t, out)
	for key, kept := range map[string]bool{"leaf": true, "leaf-lab-paris": true, "leaf-lab-tokyo": false} {
		got, before := string(m.secretData(t, natsAuthSecret, key)), ""
		if dig(installed, "data", key) != nil {
			before = string(first.secretData(t, natsAuthSecret, key))
		}
		if kept != (got == before) || len(got) < 32 {
			t.Errorf("key %s: password %q after the upgrade, %q before (want kept: %v)", key, got, before, kept)
		}
	}
	if !slices.Contains(requests(), "GET /api/v1/namespaces/"+namespace+"/secrets/"+natsAuthSecret) {
		t.Errorf("helm did not read the Secret back: %v", requests())
	}
}

// TestChartRefusesBadSites: a site or node the hub cannot name, a site given twice or without
// nodes, a node given twice or at two sites, fails the render with a message that says what to
// write.
func TestChartRefusesBadSites(t *testing.T) {
	for _, c := range []struct {
		name  string
		sites []any
		want  string
	}{
		{"plain-dot", []any{"par.is"}, `hub.sites[0]: site "par.is": use letters, digits, '-' and '_'`},
		{"object-dot", []any{scoped("par.is", "n1")}, `hub.sites[0]: site "par.is": use letters, digits, '-' and '_'`},
		{"node-dot", []any{"a", scoped("b", "n1", "n.2")}, `hub.sites[1] (b): node "n.2": use letters, digits, '-' and '_'`},
		{"node-star", []any{scoped("b", "*")}, `hub.sites[0] (b): node "*": use letters, digits`},
		{"twice", []any{"a", scoped("a", "n1")}, "hub.sites[1]: site a is given twice"},
		{"no-nodes", []any{scoped("a")}, "hub.sites[0] (a): name the site's nodes, {name: a, nodes: [NODE, ...]}, or give the site as a plain name"},
		{"node-two-sites", []any{scoped("a", "n1"), scoped("b", "n2", "n1")}, "hub.sites[1] (b): node n1 is at site a too"},
		{"node-twice", []any{"x", scoped("a", "n1", "n2", "n1")}, "hub.sites[1] (a): node n1 is given twice: give each node once"},
		{"twice-with-nodes", []any{scoped("a", "n1"), scoped("a", "n1")}, "hub.sites[1]: site a is given twice"},
		{"empty-nodes", []any{map[string]any{"name": "a", "nodes": []string{}}}, "hub.sites[0] (a): name the site's nodes"},
		{"empty-node", []any{scoped("a", "n1", "")}, `hub.sites[0] (a): node "": use letters, digits, '-' and '_'`},
		{"empty-name", []any{""}, `hub.sites[0]: site "": use letters, digits, '-' and '_'`},
		{"long-node", []any{scoped("a", strings.Repeat("n", 65))}, `hub.sites[0] (a): node "nnnn`},
		{"stand-in-node", []any{scoped("a", "x"+standInSite)}, "hub.sites[0] (a): x" + standInSite + " holds " + standInSite + " or " + standInNode},
		{"stand-in-name", []any{scoped(standInNode, "n1")}, "hub.sites[0] (" + standInNode + "): " + standInNode + " holds"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := helm(t, append([]string{"template", release, chartDir(t)}, sitesValues(t, c.name, c.sites...).args()...)...)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("hub.sites %v: %v; want an error with %q", c.sites, err, c.want)
			}
		})
	}
}

// TestChartNotesSites: NOTES.txt warns that plain-named sites may act for every node, and names
// each scoped site's leaf user and key.
func TestChartNotesSites(t *testing.T) {
	dir := notesChart(t)
	const warning = "WARNING: edge sites lab-old connect as the leaf user shared by every site"
	plain := renderNotes(t, dir, sitesValues(t, "mixed", "lab-old", scoped("lab-paris", "paris-1")))
	for _, w := range []string{warning, "{name: lab-old, nodes: [NODE, ...]}", "site lab-paris: user leaf-lab-paris, key leaf-lab-paris"} {
		if !strings.Contains(plain, w) {
			t.Errorf("NOTES.txt lacks %q:\n%s", w, plain)
		}
	}
	if scopedOnly := renderNotes(t, dir, sitesValues(t, "scoped", scoped("lab-paris", "paris-1"))); strings.Contains(scopedOnly, "WARNING: edge sites") {
		t.Errorf("NOTES.txt warns with every site scoped:\n%s", scopedOnly)
	}
}

// TestChartSiteNodesPassCheckConfig: corral gateway takes the --sites and --site-nodes the
// chart gives it for sites by name and with their nodes.
func TestChartSiteNodesPassCheckConfig(t *testing.T) {
	m := render(t, sitesValues(t, "mixed", "lab-old", scoped("lab-paris", "paris-1", "paris-2"), scoped("lab-tokyo", "tokyo-1")))
	_, pod, gw := gateway(t, m)
	files := map[string]string{}
	if f, ok := flags(gw)["auth-policy"]; ok {
		_, files[f] = loadPolicy(t, m, pod, gw)
	}
	checkConfig(t, gw, gatewayArgs(t, m), files)
}
