package chart_test

// Edge sites in the chart: a hub's release (examples/hub.yaml) and a site's
// (examples/site.yaml), their NATS configurations run by real nats-servers: the site joins the
// hub as its own leaf user, limited to its nodes, the hub's gateway user reaches the site's
// JetStream domain across the link, and the site's nodes' heartbeats reach the hub, not another
// site's.

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/corral-farm/corral/broker"
)

func TestChartEdgeSites(t *testing.T) {
	hub := render(t, example(t, "hub"))
	want := []string{"--sites=lab-paris,lab-tokyo", "--site-nodes=lab-paris=paris-1,paris-2", "--site-nodes=lab-tokyo=tokyo-1"}
	if got := siteArgs(gatewayArgs(t, hub)); !slices.Equal(got, want) {
		t.Errorf("hub gateway site args %q, want %q", got, want)
	}
	svc := hub.must(t, "Service", fullname+"-nats-leaf")
	if typ, port := str(dig(svc, "spec", "type")), fmt.Sprint(dig(svc, "spec", "ports", 0, "port")); typ != "LoadBalancer" || port != "7422" {
		t.Errorf("leaf Service: type %s port %s, want the example's LoadBalancer on 7422", typ, port)
	}
	if len(ingressTo(networkPolicies(t, hub)["nats"], "leafnodes")) == 0 {
		t.Error("the hub's NATS NetworkPolicy does not let sites reach the leaf port")
	}
	// Each site its own leaf user, limited to its nodes; no user shared by every site.
	hubOpts := hubNATS(t, hub)
	if hubOpts.LeafNode.Port != 7422 || !hubOpts.LeafNode.NoAdvertise {
		t.Errorf("hub leafnodes: port %d, no_advertise %v; want 7422 and true", hubOpts.LeafNode.Port, hubOpts.LeafNode.NoAdvertise)
	}
	if got := leafUsers(hubOpts); !slices.Equal(got, []string{"leaf-lab-paris", "leaf-lab-tokyo"}) {
		t.Fatalf("the hub example's leaf users %v, want leaf-lab-paris and leaf-lab-tokyo (no user shared by every site)", got)
	}
	leaf := hubUser(t, hubOpts, "leaf-lab-paris")
	leafPassword := string(hub.secretData(t, natsAuthSecret, "leaf-lab-paris"))
	if _, ok := leaf.AllowedConnectionTypes["LEAFNODE"]; !ok || len(leaf.AllowedConnectionTypes) != 1 || leaf.Password != leafPassword {
		t.Errorf("leaf-lab-paris: connection types %v, password from the Secret %v; want leaf connections only", leaf.AllowedConnectionTypes, leaf.Password == leafPassword)
	}
	perms, _ := broker.LeafPermissions("lab-paris", "paris-1", "paris-2")
	if err := samePermissions(leaf.Permissions, &server.Permissions{Publish: &server.SubjectPermission{Allow: perms.PublishAllow},
		Subscribe: &server.SubjectPermission{Allow: perms.SubscribeAllow}}); err != nil {
		t.Errorf("leaf-lab-paris: %v (broker.LeafPermissions of lab-paris's nodes)", err)
	}
	if notes := renderNotes(t, notesChart(t), example(t, "hub")); strings.Contains(notes, "WARNING: edge sites") {
		t.Errorf("installing the hub example warns of sites acting for every node:\n%s", notes)
	}
	hubNATS := runServer(t, hubOpts)

	site := render(t, example(t, "site"))
	sts := site.must(t, "StatefulSet", fullname+"-nats")
	vars, _ := env(container(t, dig(sts, "spec", "template", "spec").(object), "nats"))
	if vars["NATS_LEAF_PASSWORD"] != "secret:corral-hub-leaf/leaf-lab-paris" {
		t.Errorf("site NATS_LEAF_PASSWORD %q, want the example's Secret corral-hub-leaf/leaf-lab-paris", vars["NATS_LEAF_PASSWORD"])
	}
	if vars["SERVER_NAME"] != "lab-paris-$(POD_NAME)" || vars["POD_NAME"] != "field:metadata.name" {
		t.Errorf("site SERVER_NAME %q (POD_NAME %q): want the site's name before the pod's, as a hub takes one leaf per server name", vars["SERVER_NAME"], vars["POD_NAME"])
	}
	if vars["NATS_LEAF_URL_0"] != "nats-leaf://leaf-lab-paris:$(NATS_LEAF_PASSWORD)@hub.example.com:7422" {
		t.Errorf("site NATS_LEAF_URL_0 %q: want the hub's URL with the site's leaf user and the password Kubernetes puts in", vars["NATS_LEAF_URL_0"])
	}
	// As Kubernetes expands it, aimed at the hub running here.
	hubLeaf := fmt.Sprintf("nats-leaf://leaf-lab-paris:%s@127.0.0.1:%d", url.PathEscape(leafPassword), hubOpts.LeafNode.Port)
	siteOpts := natsConfig(t, site, map[string]string{"SERVER_NAME": "lab-paris-" + fullname + "-nats-0", "NATS_LEAF_URL_0": hubLeaf})
	if siteOpts.JetStreamDomain != "lab-paris" || len(siteOpts.LeafNode.Remotes) != 1 {
		t.Fatalf("site NATS: domain %q, %d leaf remotes; want lab-paris and one", siteOpts.JetStreamDomain, len(siteOpts.LeafNode.Remotes))
	}
	r := siteOpts.LeafNode.Remotes[0]
	if !slices.Equal(r.DenyImports, broker.LeafLocal) || !slices.Equal(r.DenyExports, broker.LeafLocal) {
		t.Errorf("site leaf remote denies %v in, %v out; want broker.LeafLocal both ways", r.DenyImports, r.DenyExports)
	}
	siteNATS := runServer(t, siteOpts)
	deadline := time.Now().Add(10 * time.Second)
	for hubNATS.NumLeafNodes() != 1 {
		if time.Now().After(deadline) {
			t.Fatal("the site's NATS did not join the hub's with the example's leaf user")
		}
		time.Sleep(10 * time.Millisecond)
	}

	gwPassword := string(hub.secretData(t, natsAuthSecret, string(broker.RoleGateway)))
	hubGateway := connect(t, hubNATS.ClientURL(), broker.UserName(broker.RoleGateway, ""), gwPassword)
	beats, err := hubGateway.SubscribeSync(broker.Heartbeats)
	if err != nil {
		t.Fatal(err)
	}
	nodePassword := string(site.secretData(t, natsAuthSecret, string(broker.RoleNode)))
	siteNode := connect(t, siteNATS.ClientURL(), broker.UserName(broker.RoleNode, broker.AnyNode), nodePassword)
	// Each round beats as tokyo-1, then as paris-1, on one connection: the hub hears them in that
	// order, so the first beat it hears is paris-1's unless the site may speak as tokyo-1.
	deadline = time.Now().Add(10 * time.Second)
	for {
		_ = siteNode.Publish(fmt.Sprintf(broker.HeartbeatT, "tokyo-1"), []byte(`{}`))
		_ = siteNode.Publish(fmt.Sprintf(broker.HeartbeatT, "paris-1"), []byte(`{}`))
		if m, err := beats.NextMsg(100 * time.Millisecond); err == nil {
			if !strings.HasSuffix(m.Subject, ".paris-1") {
				t.Fatalf("the hub heard %s from site lab-paris: its leaf user speaks as another site's node", m.Subject)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("a site node's heartbeat did not reach the hub's gateway")
		}
	}
	// The hub's sources and gateways reach the site's JetStream by its domain.
	if _, err := hubGateway.Request("$JS.lab-paris.API.INFO", nil, 5*time.Second); err != nil {
		t.Errorf("the hub's gateway user asking the site's JetStream (domain lab-paris): %v", err)
	}
}

// runServer runs a nats-server of a chart's configuration in the test: one server, free ports,
// JetStream in a temporary directory.
func runServer(t *testing.T, opts *server.Options) *server.Server {
	t.Helper()
	opts.Host, opts.Port, opts.HTTPPort, opts.HTTPHost = "127.0.0.1", -1, 0, ""
	opts.Cluster, opts.Routes, opts.RoutesStr = server.ClusterOpts{}, nil, ""
	opts.StoreDir, opts.PidFile, opts.NoSigs, opts.NoLog = t.TempDir(), "", true, true
	if opts.LeafNode.Port != 0 {
		opts.LeafNode.Host, opts.LeafNode.Port = "127.0.0.1", -1
	}
	s, err := server.NewServer(opts)
	if err != nil {
		t.Fatal(err)
	}
	go s.Start()
	t.Cleanup(s.Shutdown)
	if !s.ReadyForConnections(10 * time.Second) {
		t.Fatal("nats-server with the chart's configuration did not start")
	}
	return s
}
