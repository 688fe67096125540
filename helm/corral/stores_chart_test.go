package chart_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/corral-farm/corral/broker"
)

// startChartGateway starts corral gateway as the chart's gateway container: its flags (on
// loopback, the policy file a local copy, drop removed) and its CORRAL_* environment, with the
// test server's NATS URL and the gateway user's password. Its /readyz is on the returned
// process's addr.
func startChartGateway(t *testing.T, m manifest, url, password string, drop func(arg string) bool) *chartNode {
	t.Helper()
	bin, err := corralBin()
	if err != nil {
		t.Fatal(err)
	}
	_, pod, gw := gateway(t, m)
	_, policy := loadPolicy(t, m, pod, gw)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	args := []string{"gateway", "--http=" + addr, "--auth-policy=" + policy}
	for _, a := range gw["args"].([]any)[1:] {
		if f := str(a); !strings.HasPrefix(f, "--http=") && !strings.HasPrefix(f, "--auth-policy=") && (drop == nil || !drop(f)) {
			args = append(args, f)
		}
	}
	return startChartProcess(t, bin, args, gw, addr, url, password, nil)
}

// sizeFlags are a container's store size flags, in order.
func sizeFlags(c object) []string {
	var out []string
	for _, a := range c["args"].([]any) {
		if f := str(a); strings.Contains(f, "-max-bytes=") {
			out = append(out, f)
		}
	}
	return out
}

// TestChartStoreSizesFitTheNATS: nats.storeSizes reach the gateways and the nodes alike, and
// with them Corral's stores fit a NATS whose JetStream storage Corral's default sizes do not
// (2.125GiB and a fixed 120MiB reserved per server): the gateway starts and sizes the stores, and a node that
// starts first creates them with the same sizes. The gateway applied its replicas
// (CORRAL_NATS_REPLICAS, which the chart always gives) with the default sizes, so it exited
// with "insufficient storage resources … lower those flags" whatever the flags said.
func TestChartStoreSizesFitTheNATS(t *testing.T) {
	small := valuesCase{name: "small-nats", files: example(t, "shared-farm").files,
		sets: []string{"nats.bundled.replicas=1", "nats.bundled.jetstream.maxFileStore=2GB"}}
	a := renderedNATSAuth(t, small)
	_, _, gw := gateway(t, a.m)
	node := container(t, dig(a.m.must(t, "DaemonSet", fullname+"-node"), "spec", "template", "spec").(object), "node")
	want := []string{"--events-max-bytes=512MiB", "--screenshots-max-bytes=512MiB", "--sessions-max-bytes=64MiB"}
	if got := sizeFlags(gw); !slices.Equal(got, want) {
		t.Errorf("gateway size flags %v, want %v", got, want)
	}
	if got := sizeFlags(node); !slices.Equal(got, want) {
		t.Errorf("node size flags %v, want %v", got, want)
	}
	if got := sizeFlags(container(t, dig(render(t, valuesCase{name: "default"}).must(t, "DaemonSet", fullname+"-node"), "spec", "template", "spec").(object), "node")); len(got) != 0 {
		t.Errorf("default values give the node %v; want no size flag (Corral's defaults)", got)
	}
	_, gwPassword := a.podUser(t, "Deployment/"+fullname+"-gateway", broker.RoleGateway)
	_, nodePassword := a.podUser(t, "DaemonSet/"+fullname+"-node", broker.RoleNode)

	// sizes returns the caps the stores have on the server at url; a store not made yet has none.
	sizes := func(url string) map[string]int64 {
		t.Helper()
		c := connect(t, url, broker.UserName(broker.RoleGateway, broker.AnyNode), gwPassword)
		js, err := jetstream.New(c.Conn)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		defer cancel()
		out := map[string]int64{}
		for _, name := range []string{broker.EventStream, "OBJ_" + broker.ScreenshotBucket, "KV_" + broker.SessionBucket} {
			s, err := js.Stream(ctx, name)
			if errors.Is(err, jetstream.ErrStreamNotFound) {
				continue
			}
			if err != nil {
				t.Fatalf("stream %s: %v", name, err)
			}
			out[name] = s.CachedInfo().Config.MaxBytes
		}
		return out
	}
	wantSizes := map[string]int64{broker.EventStream: 512 << 20, "OBJ_" + broker.ScreenshotBucket: 512 << 20, "KV_" + broker.SessionBucket: 64 << 20}
	nodeMade := map[string]bool{broker.EventStream: true, "OBJ_" + broker.ScreenshotBucket: true} // not the sessions: a gateway's
	same := func(got map[string]int64, byNode bool) bool {
		for k, v := range wantSizes {
			if (!byNode || nodeMade[k]) && got[k] != v {
				return false
			}
		}
		return true
	}

	// The gateway first: it starts, and the stores have the values' sizes.
	url := startNATS(t, a)
	g := startChartGateway(t, a.m, url, gwPassword, nil)
	readyz(t, g, "gateway with nats.storeSizes")
	if got := sizes(url); !same(got, false) {
		t.Errorf("after the gateway: store sizes %v, want %v", got, wantSizes)
	}
	n := startChartNode(t, node, url, nodePassword, "sizes-after", nil)
	n.ready(t, "node after the gateway")

	// A node first, on a fresh server: it creates the stores it uses with the same sizes (not
	// the sessions' bucket, which a node may not create), and the gateway after it starts and
	// keeps them.
	url = startNATS(t, a)
	n = startChartNode(t, node, url, nodePassword, "sizes-first", nil)
	n.ready(t, "node first")
	if got := sizes(url); !same(got, true) {
		t.Errorf("made by a node: store sizes %v, want %v", got, wantSizes)
	}
	if _, made := sizes(url)["KV_"+broker.SessionBucket]; made {
		t.Errorf("a node made the sessions' bucket")
	}
	readyz(t, startChartGateway(t, a.m, url, gwPassword, nil), "gateway after a node")
	if got := sizes(url); !same(got, false) {
		t.Errorf("after a node, then the gateway: store sizes %v, want %v", got, wantSizes)
	}

	// Corral's default sizes do not fit this server: the gateway says so and which flags to lower.
	url = startNATS(t, a)
	g = startChartGateway(t, a.m, url, gwPassword, func(f string) bool { return strings.Contains(f, "-max-bytes=") })
	select {
	case <-g.exited:
	case <-time.After(time.Minute):
		t.Fatalf("gateway with default sizes on a 2GB JetStream still running after a minute:\n%s", g.out)
	}
	if out := g.out.String(); !strings.Contains(out, "insufficient storage resources") || !strings.Contains(out, "--sessions-max-bytes") {
		t.Errorf("gateway with default sizes on a 2GB JetStream: want the storage refusal naming the flags:\n%s", out)
	}
}

// readyz waits for a gateway's /readyz to answer 200; one that exits first fails the test.
func readyz(t *testing.T, g *chartNode, what string) {
	t.Helper()
	client := http.Client{Timeout: 5 * time.Second}
	deadline := time.Now().Add(time.Minute)
	for {
		select {
		case <-g.exited:
			t.Fatalf("%s: corral gateway exited (%v) before it was ready:\n%s", what, g.cmd.ProcessState, g.out)
		default:
		}
		if resp, err := client.Get("http://" + g.addr + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: corral gateway not ready within a minute:\n%s", what, g.out)
		}
		time.Sleep(50 * time.Millisecond) // polling a deadline: the gateway is starting
	}
}
