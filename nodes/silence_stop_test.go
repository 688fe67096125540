package nodes

import (
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
)

// A node stopped while it asks a lease request's caller whether it still waits (after a
// silence; the gateway does not answer), and while it delivers a grant (the caller listens
// and, as it does, does not answer): Stop ends both and waits for them. No goroutine of theirs
// is left once it returns.
func TestStopLeavesNoLeaseGoroutine(t *testing.T) {
	r := startLossRig(t)
	granted := r.send(t, broker.EndpointAcquire, broker.AcquireRequest{V: broker.WireVersion, Serial: "p1", Holder: broker.Holder{Principal: "first"}, ID: "acq_granted"})
	require.True(t, leaseAnswer(t, granted).OK, "the first lease")

	r.afterSilence()
	mute := r.answerProbes(t, "c_mute", nil, nil)
	r.send(t, broker.EndpointAcquire, broker.AcquireRequest{V: broker.WireVersion, Serial: "p1", Holder: broker.Holder{Principal: "asked"},
		ID: "acq_asked", Probe: "c_mute", WaitMS: 30_000})
	select {
	case <-mute:
	case <-time.After(15 * time.Second):
		t.Fatal("the caller was not asked")
	}

	stopped := make(chan struct{})
	go func() { r.n.Stop(); close(stopped) }()
	select {
	case <-stopped:
	case <-time.After(30 * time.Second):
		t.Fatal("Stop did not return")
	}
	buf := make([]byte, 1<<20)
	var left []string
	for _, g := range strings.Split(string(buf[:runtime.Stack(buf, true)]), "\n\n") {
		for _, f := range []string{"nodes.(*Node).leaseCallerWaits", "nodes.(*Node).askThenTake", "nodes.(*Node).takeLease", "nodes.(*Node).answerLease"} {
			if strings.Contains(g, f) {
				left = append(left, g)
				break
			}
		}
	}
	if len(left) > 0 {
		t.Fatalf("%d goroutines of lease requests left after Stop:\n%s", len(left), strings.Join(left, "\n\n"))
	}
}
