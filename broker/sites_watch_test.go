package broker_test

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
)

// A site a hub gateway first sees down (a new site not connected yet) is not reconnecting when
// its link comes up: corral_site_reconnects_total stays 0 and nothing is logged as having come
// back, though entries the hub lacks are restored. Cut after that and healed, the link is back:
// counted once and logged so.
func TestSiteFirstLinkUpIsNoReconnect(t *testing.T) {
	h := farmtest.StartHub(t, farmtest.HubOptions{Sites: map[string][]string{"tokyo": {"n1"}}, PhonesPerNode: 1, Quiet: true})
	// Only this test's watch restores: the hub's own gateway would race it.
	h.StopGateway()
	tokyo := h.Sites["tokyo"]
	registry, leases := hubBucket(t, h, broker.RegistryBucket), hubBucket(t, h, broker.LeaseBucket)
	// A lease taken at the site: its restore, the last of a heal's, tells when a heal is over.
	farmtest.MustCall(t, tokyo.Client("site-agent"), "acquire_device", map[string]any{"serial": "n1-p1"})
	farmtest.Eventually(t, waitLong, func() bool {
		_, err := leases.Get(t.Context(), broker.LeaseKey("n1", "n1-p1"))
		return err == nil
	}, "the site's lease at the hub")
	tokyo.Link.Cut()

	var logs siteLog
	reg := prometheus.NewRegistry()
	nc, err := broker.Connect(h.Connect(broker.UserName(broker.RoleGateway, ""), "site-watch"), slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	w, err := broker.WatchSites(t.Context(), nc, []string{"tokyo"}, broker.NewSiteMetrics(reg), slog.New(slog.NewTextHandler(&logs, nil)))
	if err != nil {
		t.Fatal(err)
	}

	// heal waits for the watch to see the cut, does what a hub gateway's reaper does during
	// one, heals the link and waits until the watch restored what the reaper did.
	heal := func(stage string) {
		t.Helper()
		farmtest.Eventually(t, waitLong, func() bool {
			return strings.Contains(logs.String(), "site link down") || strings.Contains(logs.String(), "site not connected yet")
		},
			"%s: the watch sees tokyo down; its log:\n%s", stage, &logs)
		markOffline(t, registry, "n1", "n1-p1")
		if err := leases.Delete(t.Context(), broker.LeaseKey("n1", "n1-p1")); err != nil {
			t.Fatal(err)
		}
		tokyo.Link.Heal()
		farmtest.Eventually(t, waitLong, func() bool { return w.Up("tokyo") }, "%s: tokyo up", stage)
		farmtest.Eventually(t, waitLong, func() bool { return strings.Contains(logs.String(), "bucket="+broker.LeaseBucket) },
			"%s: the lease restored at the hub; the watch's log:\n%s", stage, &logs)
	}

	heal("first link-up")
	if got := gathered(t, reg, "corral_site_reconnects_total", "tokyo"); got != 0 {
		t.Errorf("corral_site_reconnects_total is %v after the site's first link-up, want 0", got)
	}
	if s := logs.String(); strings.Contains(s, "came back") || strings.Contains(s, "site link back") {
		t.Errorf("the first link-up was logged as the link coming back:\n%s", s)
	}

	logs.Reset()
	tokyo.Link.Cut()
	heal("after a cut")
	if got := gathered(t, reg, "corral_site_reconnects_total", "tokyo"); got != 1 {
		t.Errorf("corral_site_reconnects_total is %v after one cut, want 1", got)
	}
	if s := logs.String(); !strings.Contains(s, "site link back") || !strings.Contains(s, "after its link came back") {
		t.Errorf("the link-up after a cut was not logged as the link coming back:\n%s", s)
	}
}

// gathered is the value of a site's series of a metric in reg.
func gathered(t *testing.T, reg prometheus.Gatherer, name, site string) float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		for _, m := range f.GetMetric() {
			if f.GetName() == name && len(m.GetLabel()) == 1 && m.GetLabel()[0].GetValue() == site {
				return m.GetCounter().GetValue()
			}
		}
	}
	t.Fatalf("no %s{site=%q} gathered", name, site)
	return 0
}

// hubBucket opens a bucket of the hub's as a gateway, which writes the registry and the
// leases when it reaps a node.
func hubBucket(t *testing.T, h *farmtest.Hub, bucket string) jetstream.KeyValue {
	t.Helper()
	nc, err := broker.Connect(h.Connect(broker.UserName(broker.RoleGateway, ""), "reaper"), slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	kv, err := js.KeyValue(t.Context(), bucket)
	if err != nil {
		t.Fatal(err)
	}
	return kv
}

// markOffline writes a device offline in a registry.
func markOffline(t *testing.T, kv jetstream.KeyValue, node, serial string) {
	t.Helper()
	e, err := kv.Get(t.Context(), broker.RegistryKey(node, serial))
	if err != nil {
		t.Fatal(err)
	}
	var d broker.DeviceEntry
	if err := json.Unmarshal(e.Value(), &d); err != nil {
		t.Fatal(err)
	}
	d.State = broker.StateOffline
	b, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kv.Put(t.Context(), e.Key(), b); err != nil {
		t.Fatal(err)
	}
}

// siteLog is a watch's log output, read while the log writes.
type siteLog struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *siteLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *siteLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func (l *siteLog) Reset() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.b.Reset()
}
