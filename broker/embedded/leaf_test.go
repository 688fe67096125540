package embedded_test

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/broker/embedded"
)

// A hub takes a site's server as its leaf user, which may not connect as a client; the site's
// uplink shows on /metrics, down when the hub goes and up again, counted, when it is back.
func TestSiteUplink(t *testing.T) {
	log := slog.New(slog.DiscardHandler)
	perms, err := broker.LeafPermissions("paris")
	if err != nil {
		t.Fatal(err)
	}
	leaf := embedded.User{Name: "leaf-paris", Password: "pw", Permissions: embedded.Permissions(perms), Leaf: true}
	listen := &embedded.LeafListenOptions{Port: -1}
	hubDir := t.TempDir()
	startHub := func() *server.Server {
		hub, err := embedded.Start(embedded.Options{Port: -1, StoreDir: hubDir, Name: "hub", Users: []embedded.User{leaf}, LeafListen: listen}, log)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(hub.Shutdown)
		return hub
	}
	hub := startHub()
	site, err := embedded.Start(embedded.Options{Port: -1, StoreDir: t.TempDir(), Name: "paris", Domain: "paris",
		LeafRemote: &embedded.LeafRemoteOptions{URLs: []string{fmt.Sprintf("nats-leaf://127.0.0.1:%d", listen.Port)}, User: "leaf-paris",
			Password: "pw", Local: broker.LeafLocal, ReconnectEvery: 100 * time.Millisecond}}, log)
	if err != nil {
		t.Fatal(err)
	}
	defer site.Shutdown()
	reg := prometheus.NewRegistry()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	embedded.WatchUplink(ctx, site, reg, log)
	metric := func(name string) float64 {
		mfs, _ := reg.Gather()
		for _, mf := range mfs {
			if mf.GetName() == name {
				if g := mf.GetMetric()[0].GetGauge(); g != nil {
					return g.GetValue()
				}
				return mf.GetMetric()[0].GetCounter().GetValue()
			}
		}
		return -1
	}
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for !cond() {
			if time.Now().After(deadline) {
				t.Fatalf("not within 10s: %s (corral_leaf_up %v, connects %v)", what, metric("corral_leaf_up"), metric("corral_leaf_connects_total"))
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	waitFor("the uplink up", func() bool { return metric("corral_leaf_up") == 1 && metric("corral_leaf_connects_total") == 1 })

	if nc, err := nats.Connect(hub.ClientURL(), nats.UserInfo("leaf-paris", "pw")); err == nil {
		nc.Close()
		t.Fatal("a client connected to the hub as the leaf user")
	}

	hub.Shutdown()
	hub.WaitForShutdown()
	waitFor("the uplink down", func() bool { return metric("corral_leaf_up") == 0 })
	startHub()
	waitFor("the uplink back, counted", func() bool { return metric("corral_leaf_up") == 1 && metric("corral_leaf_connects_total") == 2 })
}

// Bad edge options are refused with what to do, before anything listens.
func TestLeafOptionsRefused(t *testing.T) {
	log := slog.New(slog.DiscardHandler)
	remote := &embedded.LeafRemoteOptions{URLs: []string{"nats-leaf://127.0.0.1:7422"}}
	for _, c := range []struct {
		opts embedded.Options
		want string
	}{
		{embedded.Options{LeafRemote: remote}, "JetStream domain of its own"},
		{embedded.Options{Domain: "pa.ris"}, "JetStream domain"},
		{embedded.Options{Domain: "paris", LeafRemote: &embedded.LeafRemoteOptions{}}, "no hub URL"},
		{embedded.Options{Domain: "paris", LeafRemote: &embedded.LeafRemoteOptions{URLs: []string{"hub:7422"}}}, "want nats-leaf://HOST:PORT"},
		// A secret the URL cannot hold: ? ends the host (NATS would dial "s3cr" and log it), and
		// a password that does not parse. Neither is quoted back.
		{embedded.Options{Domain: "paris", LeafRemote: &embedded.LeafRemoteOptions{URLs: []string{"nats-leaf://s3cr?et-token@127.0.0.1:7422"}}}, "percent-encode it"},
		{embedded.Options{Domain: "paris", LeafRemote: &embedded.LeafRemoteOptions{URLs: []string{"nats-leaf://leaf:pa%zzword@127.0.0.1:7422"}}}, "want nats-leaf://HOST:PORT or tls://HOST:PORT"},
	} {
		c.opts.Port, c.opts.StoreDir = -1, t.TempDir()
		ns, err := embedded.Start(c.opts, log)
		if err == nil {
			ns.Shutdown()
			t.Errorf("%+v started", c.opts)
		} else if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want it to say %q", c.opts, err, c.want)
		} else if strings.Contains(err.Error(), "et-token") || strings.Contains(err.Error(), "zzword") {
			t.Errorf("the refusal quotes the secret: %v", err)
		}
	}
}
