package bench

import (
	"fmt"
	"log/slog"
	"slices"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
)

// BenchmarkLeafCall times, side by side (inTurns), get_screen_size sent by a hub gateway's
// farm client to a device of an edge site, whose NATS is a leaf node of the hub's (issue 19),
// and to a device of a node on the hub's own NATS, with one bare NATS request/reply on the hub
// (nats-floor) and one across the leaf connection (leaf-floor). Every connection is loopback
// TCP, as between processes. added-ratio = (site p50 − local p50) / nats-floor p50: what the
// leaf hop adds to a call, in NATS round trips; goal ≤ 1.5.
func BenchmarkLeafCall(b *testing.B) {
	h := farmtest.StartHub(b, farmtest.HubOptions{Sites: map[string][]string{"site-a": {"n1"}, "site-b": {"n2"}},
		HubNodes: []string{"n3"}, PhonesPerNode: 1, DirectLinks: true, Quiet: true})
	lat := interleave(b, []path{
		{"local", hubTask(b, h, "n3-p1")},
		{"site", hubTask(b, h, "n1-p1")},
		{"nats-floor", floorAcross(b, h.Farm, h.Farm, "n8")},
		{"leaf-floor", floorAcross(b, h.Farm, h.Sites["site-a"].Farm, "n9")},
	})
	floor := float64(p50(lat[2]))
	b.ReportMetric((float64(p50(lat[1]))-float64(p50(lat[0])))/floor, "added-ratio")
	b.ReportMetric(float64(p50(lat[3]))/floor, "leaf-floor-ratio")
}

// hubTask sends get_screen_size to serial by the hub gateway's farm client (implicit lease).
func hubTask(b *testing.B, h *farmtest.Hub, serial string) func() error {
	c := h.Gateway().Client
	return func() error {
		res, err := c.Run(b.Context(), broker.TaskRequest{V: broker.WireVersion, ID: broker.NewTaskID(), Serial: serial, Tool: nopTool,
			Holder: broker.Holder{Principal: "anonymous", Client: "bench-leaf"}}, nil)
		if err == nil && res.Outcome != broker.OutcomeSucceeded {
			err = fmt.Errorf("%s on %s: %s", res.Outcome, serial, res.Error)
		}
		return err
	}
}

// floorAcross is a bare NATS request/reply with a task's payload: the requester a gateway
// user of from's server, the responder node user id of to's (the same server, or a site
// across its leaf connection), on the subject of that node's task endpoint.
func floorAcross(b *testing.B, from, to *farmtest.Farm, id string) func() error {
	b.Helper()
	log := slog.New(slog.DiscardHandler)
	responder, err := broker.Connect(to.Connect(broker.UserName(broker.RoleNode, id), "bench-responder"), log)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(responder.Close)
	requester, err := broker.Connect(from.Connect(broker.UserName(broker.RoleGateway, ""), "bench-requester"), log)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(requester.Close)
	subject := fmt.Sprintf(broker.NodeGroupT, id) + "." + broker.EndpointTask
	reply := []byte(`{"v":1,"id":"t_0123456789","serial":"n1-p1","node":"n1","tool":"get_screen_size","outcome":"succeeded","data":{"width":1080,"height":2400,"message":"screen size: 1080x2400 pixels"}}`)
	req := []byte(`{"v":1,"id":"t_0123456789","serial":"n1-p1","tool":"get_screen_size","args":{},"holder":{"principal":"anonymous","client":"bench"}}`)
	if _, err := responder.Subscribe(subject, func(m *nats.Msg) { _ = m.Respond(reply) }); err != nil {
		b.Fatal(err)
	}
	if err := responder.Flush(); err != nil {
		b.Fatal(err)
	}
	farmtest.Eventually(b, 5*time.Second, func() bool { _, err := requester.Request(subject, req, time.Second); return err == nil },
		"%s answers from across", subject)
	return func() error { _, err := requester.Request(subject, req, callTimeout); return err }
}

// BenchmarkLeafCut cuts an edge site's uplink and heals it once per iteration (run it with
// -benchtime Nx): how long the hub's gateway takes to notice the cut (corral_site_up 0), to
// show the site's devices offline, and, healed, to see the link up and the devices online.
// Goal: noticed within 3 s.
func BenchmarkLeafCut(b *testing.B) {
	h := farmtest.StartHub(b, farmtest.HubOptions{Sites: map[string][]string{"site-a": {"n1"}, "site-b": {"n2"}}, PhonesPerNode: 1, Quiet: true})
	site, watch := h.Sites["site-a"], h.Gateway().Sites
	state := func() string { d, _ := h.Gateway().Client.Device("n1-p1"); return d.State }
	var detect, offline, heal []time.Duration
	for b.Loop() {
		cut := time.Now()
		site.Link.Cut()
		farmtest.Eventually(b, 10*time.Second, func() bool { return !watch.Up("site-a") }, "the hub notices the cut")
		detect = append(detect, time.Since(cut))
		farmtest.Eventually(b, 10*time.Second, func() bool { return state() == broker.StateOffline }, "the site's device offline at the hub")
		offline = append(offline, time.Since(cut))
		healed := time.Now()
		site.Link.Heal()
		farmtest.Eventually(b, 30*time.Second, func() bool { return watch.Up("site-a") && state() == broker.StateOnline }, "the site back at the hub")
		heal = append(heal, time.Since(healed))
	}
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	b.ReportMetric(ms(slices.Max(detect)), "detect-max-ms")
	b.ReportMetric(ms(p50(detect)), "detect-p50-ms")
	b.ReportMetric(ms(slices.Max(offline)), "offline-max-ms")
	b.ReportMetric(ms(p50(heal)), "heal-p50-ms")
}
