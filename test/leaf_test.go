package test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
)

// Edge sites: a hub and two sites, each site's NATS a leaf node of the hub's, all in process
// with the credentials and permissions of production. The hub's one MCP endpoint lists and
// drives both sites' devices. Site A's uplink is cut while callers at the hub and at the site
// are busy: the site keeps serving its own callers, the hub notices within 3 s, site B is not
// disturbed; healed, the leases taken before and during the cut hold, and every task record
// written at the site during the cut reaches the hub, once.
func TestLeafSitesCutAndHeal(t *testing.T) {
	h := farmtest.StartHub(t, farmtest.HubOptions{Sites: map[string][]string{"site-a": {"n1"}, "site-b": {"n2"}}, PhonesPerNode: 3})
	a := h.Sites["site-a"]
	hubAgent, siteAgent, siteRecorder := h.Client("hub-agent"), a.Client("site-agent"), a.Client("site-recorder")

	listed := farmtest.Text(farmtest.MustCall(t, hubAgent, "list_available_devices", args()))
	contains(t, listed, "n1-p1", "n1-p2", "n2-p1", "n2-p2")
	held := acquire(t, hubAgent, args("serial", "n1-p1")) // from the hub, on site A
	farmtest.MustCall(t, hubAgent, "tap_xy", args("serial", "n1-p1", "lease", held.Lease.Handle, "x", 0.5, "y", 0.5))
	farmtest.MustCall(t, hubAgent, "tap_xy", args("serial", "n2-p1", "x", 0.5, "y", 0.5))
	hubMetrics := h.Gateway().HTTP.URL
	// Waited for, not read once: on a loaded machine the hub's probes of a site can time out
	// (siteProbeTimeout) and show the link down a moment.
	farmtest.Eventually(t, 30*time.Second, func() bool { return scrape(t, hubMetrics, `corral_site_up{site="site-a"}`) == 1 },
		"corral_site_up of site-a 1 before the cut")

	// Traffic from the hub to site B, and from site A's own callers, all along.
	ctx, stop := context.WithCancel(t.Context())
	var wg sync.WaitGroup
	var hubToB, atA atomic.Int64
	var mu sync.Mutex
	var failures []string
	keepCalling := func(c *client.Client, serial string, ok *atomic.Int64) {
		defer wg.Done()
		for ctx.Err() == nil {
			res, err := farmtest.TryCall(t, c, "get_screen_size", args("serial", serial))
			if ctx.Err() != nil {
				return
			}
			if err == nil && res.IsError {
				err = errors.New(farmtest.Text(res))
			}
			if err != nil {
				mu.Lock()
				failures = append(failures, fmt.Sprintf("%s: %v", serial, err))
				mu.Unlock()
				continue
			}
			ok.Add(1)
		}
	}
	wg.Add(2)
	go keepCalling(hubAgent, "n2-p2", &hubToB)
	go keepCalling(siteAgent, "n1-p3", &atA)
	farmtest.Eventually(t, 30*time.Second, func() bool { return hubToB.Load() > 0 && atA.Load() > 0 }, "traffic flowing")

	farmtest.Eventually(t, 30*time.Second, func() bool {
		return scrape(t, hubMetrics, `corral_node_up{node="n1"}`) == 1 && scrape(t, hubMetrics, `corral_node_up{node="n2"}`) == 1
	}, "the hub hears the sites' nodes")
	cut := time.Now()
	a.Link.Cut()
	// 0.5 to 1 s on an idle machine (broker's siteProbeEvery and siteProbeFailures); the bound
	// leaves room for a loaded one, where it took over 3 s.
	farmtest.Eventually(t, 15*time.Second, func() bool { return scrape(t, hubMetrics, `corral_site_up{site="site-a"}`) == 0 },
		"the hub notices site-a's cut (corral_site_up)")
	t.Logf("cut noticed by the hub in %s", time.Since(cut).Round(time.Millisecond))
	farmtest.Eventually(t, 30*time.Second, func() bool { return deviceState(h.Farm, "n1-p1") == broker.StateOffline },
		"site-a's devices offline at the hub")
	res := farmtest.Call(t, hubAgent, "tap_xy", args("serial", "n1-p1", "lease", held.Lease.Handle, "x", 0.5, "y", 0.5))
	if !res.IsError {
		t.Fatalf("a call from the hub to a cut-off site succeeded: %s", farmtest.Text(res))
	}
	if text := farmtest.Text(res); !strings.Contains(text, "site site-a") || !strings.Contains(text, "still held at the site") {
		t.Errorf("the refusal of a call to a cut-off site does not say the site is cut off and the lease kept: %s", text)
	}
	// The hub's list of leases says it lacks the site's (n1-p1's is held there), not that there are none.
	var leases struct {
		Unanswered string `json:"unanswered"`
	}
	farmtest.Structured(t, farmtest.MustCall(t, hubAgent, "list_leases", args()), &leases)
	if !strings.Contains(leases.Unanswered, "site-a") || !strings.Contains(leases.Unanswered, "stay held") {
		t.Errorf("list_leases at the hub during the cut does not say site-a's leases are missing: unanswered %q", leases.Unanswered)
	}

	// At the site meanwhile: a lease taken and tasks run, by the site's own callers.
	beforeA, beforeB := atA.Load(), hubToB.Load()
	local := acquire(t, siteRecorder, args("serial", "n1-p2"))
	var during []string
	for range 3 {
		farmtest.MustCall(t, siteRecorder, "tap_xy", args("serial", "n1-p2", "lease", local.Lease.Handle, "x", 0.2, "y", 0.2))
		var latest struct {
			TaskID string `json:"taskId"`
		}
		// Asked until the tap's record is there: its node writes it just after it answers, which
		// on a loaded machine took longer than get_latest_task waits for it (1 s).
		farmtest.Eventually(t, 30*time.Second, func() bool {
			r, err := farmtest.TryCall(t, siteRecorder, "get_latest_task", args("anyTool", true))
			return err == nil && !r.IsError && farmtest.Decode(r, &latest) == nil
		}, "the site's record of its latest tap")
		during = append(during, latest.TaskID)
	}
	farmtest.Eventually(t, 30*time.Second, func() bool { return atA.Load() > beforeA+3 && hubToB.Load() > beforeB+3 },
		"site A serving its callers and the hub serving site B during the cut")

	a.Link.Heal()
	healed := time.Now()
	farmtest.Eventually(t, 30*time.Second, func() bool { return scrape(t, hubMetrics, `corral_site_up{site="site-a"}`) == 1 },
		"the hub sees site-a's link back")
	farmtest.Eventually(t, 30*time.Second, func() bool {
		return deviceState(h.Farm, "n1-p1") == broker.StateLeased && deviceState(h.Farm, "n1-p2") == broker.StateLeased
	}, "site-a's devices back at the hub, leased as they are at the site")
	// The registry may come back before the node's next heartbeat does; the hub routes calls
	// to a node it hears again.
	farmtest.Eventually(t, 30*time.Second, func() bool { return scrape(t, hubMetrics, `corral_node_up{node="n1"}`) == 1 },
		"the hub hears site-a's node again")
	stop()
	wg.Wait()
	if len(failures) > 0 {
		t.Fatalf("%d calls failed that the cut should not have touched, e.g. %s", len(failures), failures[0])
	}

	// The leases held across the cut still hold: the hub's from before, the site's from during.
	farmtest.MustCall(t, hubAgent, "tap_xy", args("serial", "n1-p1", "lease", held.Lease.Handle, "x", 0.5, "y", 0.5))
	farmtest.MustCall(t, siteRecorder, "tap_xy", args("serial", "n1-p2", "lease", local.Lease.Handle, "x", 0.5, "y", 0.5))
	farmtest.MustCall(t, hubAgent, "tap_xy", args("serial", "n1-p2", "lease", local.Lease.Handle, "x", 0.5, "y", 0.5))
	hubKV := hubLeases(t, h)
	for _, serial := range []string{"n1-p1", "n1-p2"} {
		farmtest.Eventually(t, 30*time.Second, func() bool {
			_, err := hubKV.Get(t.Context(), broker.LeaseKey("n1", serial))
			return err == nil
		}, "the hub's lease mirror of %s back", serial)
	}

	// Every record written at the site during the cut reaches the hub, once.
	events := hubEvents(t, h)
	for _, id := range during {
		var rec struct {
			Outcome string `json:"outcome"`
		}
		farmtest.Eventually(t, 60*time.Second, func() bool {
			r, err := farmtest.TryCall(t, hubAgent, "get_task_result", args("task_id", id))
			return err == nil && !r.IsError && farmtest.Decode(r, &rec) == nil
		}, "task %s (run during the cut) at the hub", id)
		t.Logf("task %s at the hub %s after the heal", id, time.Since(healed).Round(time.Millisecond))
		if rec.Outcome != broker.OutcomeSucceeded {
			t.Errorf("task %s: the hub's record says %q", id, rec.Outcome)
		}
		subject := fmt.Sprintf(broker.EventTaskT, "n1", id)
		info, err := events.Info(t.Context(), jetstream.WithSubjectFilter(subject))
		if err != nil || info.State.Subjects[subject] != 1 {
			t.Errorf("task %s: %d records at the hub (%v), want 1", id, info.State.Subjects[subject], err)
		}
	}
	if got := scrape(t, hubMetrics, `corral_site_reconnects_total{site="site-a"}`); got != 1 {
		t.Errorf("corral_site_reconnects_total of site-a is %v, want 1", got)
	}
	if got := scrape(t, hubMetrics, `corral_site_up{site="site-b"}`); got != 1 {
		t.Errorf("site-b's link went down with site-a's: corral_site_up %v", got)
	}
}

// deviceState is a device's state as a farm's gateway sees it ("" when unknown).
func deviceState(f *farmtest.Farm, serial string) string {
	d, _ := f.Gateway().Client.Device(serial)
	return d.State
}

// hubLeases opens the hub's lease bucket as its operator.
func hubLeases(t *testing.T, h *farmtest.Hub) jetstream.KeyValue {
	t.Helper()
	kv, err := hubJS(t, h).KeyValue(t.Context(), broker.LeaseBucket)
	if err != nil {
		t.Fatal(err)
	}
	return kv
}

// hubEvents opens the hub's event stream as its operator.
func hubEvents(t *testing.T, h *farmtest.Hub) jetstream.Stream {
	t.Helper()
	s, err := hubJS(t, h).Stream(t.Context(), broker.EventStream)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func hubJS(t *testing.T, h *farmtest.Hub) jetstream.JetStream {
	t.Helper()
	nc, err := broker.Connect(h.Connect(broker.UserName(broker.RoleOperator, ""), "hub-operator"), slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	return js
}

// A site's screenshots stay at the site; the hub reads them there. A gesture at site B, called
// from the hub with pre_mark_operation, keeps its marked screen in site B's store; the hub's
// get_task_result returns the same image as the site's gateway (after asking site A, which
// has none); while the link is cut, the hub says it could not reach the site.
func TestHubReadsSiteScreenshots(t *testing.T) {
	h := farmtest.StartHub(t, farmtest.HubOptions{Sites: map[string][]string{"site-a": {"n1"}, "site-b": {"n2"}}, PhonesPerNode: 1, Quiet: true})
	b := h.Sites["site-b"]
	hubAgent, siteAgent := h.Client("hub-agent"), b.Client("site-agent")

	farmtest.MustCall(t, hubAgent, "tap_xy", args("serial", "n2-p1", "x", 0.3, "y", 0.6, "pre_mark_operation", true))
	var latest struct{ TaskID string }
	farmtest.Structured(t, farmtest.MustCall(t, hubAgent, "get_latest_task", args("anyTool", true)), &latest)
	marked := func(c *client.Client) *mcpgo.CallToolResult {
		return farmtest.MustCall(t, c, "get_task_result", args("taskId", latest.TaskID, "markedScreenshots", true))
	}
	var atSite [][]byte
	farmtest.Eventually(t, 30*time.Second, func() bool { atSite = images(t, marked(siteAgent)); return len(atSite) == 1 },
		"the site's gateway shows the marked screen")
	// Asked until it shows one (a loaded machine's hub can see site-b's link down a moment):
	// the image must then be the site's.
	var atHub *mcpgo.CallToolResult
	farmtest.Eventually(t, 30*time.Second, func() bool { atHub = marked(hubAgent); return len(images(t, atHub)) > 0 },
		"the hub shows the marked screen kept at site-b")
	if got := images(t, atHub); len(got) != 1 || !bytes.Equal(got[0], atSite[0]) {
		t.Fatalf("the hub shows %d images for a marked screen kept at site-b, want the site's one: %s", len(got), farmtest.Text(atHub))
	}

	b.Link.Cut()
	farmtest.Eventually(t, 30*time.Second, func() bool { return scrape(t, h.Gateway().HTTP.URL, `corral_site_up{site="site-b"}`) == 0 },
		"the hub notices site-b's cut")
	cut := marked(hubAgent)
	if text := farmtest.Text(cut); len(images(t, cut)) != 0 || !strings.Contains(text, "site site-b") || !strings.Contains(text, "is its link up?") {
		t.Fatalf("during the cut, the hub's answer for site-b's screen is not that it could not reach site-b: %s", text)
	}
}

// corral up as a hub and as an edge site, and corral node as another site's node with the
// site's NATS in its process: each site joins with the leaf context the hub wrote, and the
// hub's gateway lists and drives both sites' devices; a site's gateway, its own.
func TestCorralUpHubAndSite(t *testing.T) {
	hubData := t.TempDir()
	leafContext := func(site string) string { return filepath.Join(hubData, "nats", broker.LeafUserName(site)+".json") }
	hub := corralUp(t, "--data", hubData, "--node-id", "hub1", "--sim", "1", "--leaf-listen", freeAddr(t), "--sites", "site-a,site-b")
	site := corralUp(t, "--node-id", "a1", "--sim", "2", "--site", "site-a", "--hub-context", leafContext("site-a"))
	node := exec.Command(corral(t), "node", "--site", "site-b", "--hub-context", leafContext("site-b"), "--node-id", "b1", "--sim", "1",
		"--data", t.TempDir(), "--nats-port", "-1", "--metrics", "", "--log-level", "warn")
	node.Stdout, node.Stderr = os.Stderr, os.Stderr
	if err := node.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = node.Process.Signal(syscall.SIGINT); _ = node.Wait() })
	farmtest.Eventually(t, 30*time.Second, func() bool {
		out, err := runCorral(t, "devices", "--gateway", hub)
		return err == nil && strings.Contains(out, "sim-a1-02") && strings.Contains(out, "sim-b1-01") && strings.Contains(out, "sim-hub1-01")
	}, "the hub lists its own and both sites' devices")
	for _, serial := range []string{"sim-a1-02", "sim-b1-01"} {
		out, err := runCorral(t, "call", "--gateway", hub, "get_screen_size", `{"serial":"`+serial+`"}`)
		if err != nil {
			t.Fatalf("a call from the hub to %s: %v\n%s", serial, err, out)
		}
		contains(t, out, `"width":1080`)
	}
	out, err := runCorral(t, "devices", "--gateway", site)
	if err != nil || strings.Contains(out, "sim-hub1-01") || strings.Contains(out, "sim-b1-01") || !strings.Contains(out, "sim-a1-01") {
		t.Fatalf("site-a's gateway lists site-a's devices only: %v\n%s", err, out)
	}
}

// freeAddr is a loopback address free now.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}
