package broker_test

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
)

// stallFor is how long the tests' NATS stalls: well past 2×LostAfter, when a gateway that
// could not read its heartbeats stopped waiting for them and declared every node lost (its
// checks, each waiting for a round trip, come every 0.6 s then).
const stallFor = 3 * broker.LostAfter

// A NATS server that hangs (QA: kill -STOP of nats-server for 12 s) keeps every TCP
// connection: no client sees a disconnection, yet no gateway hears any node. Like an outage,
// it loses no node, however long it lasts: a call running through it ends as it would have,
// and a lease held through it is still held.
func TestNATSStallLosesNoNode(t *testing.T) {
	var link broker.StallLink
	f := startRoutedLossFarm(t, 2, func(addr string) func(string, string) string {
		link = broker.StartStallLink(t, addr)
		return func(string, string) string { return link.URL() }
	}, "n1", "n2")
	gw := f.gateways[0].client
	alice := broker.Holder{Principal: "alice"}
	held := map[string]string{}
	for _, serial := range []string{"n1-p1", "n2-p1"} {
		ans, err := gw.Acquire(t.Context(), broker.AcquireRequest{V: broker.WireVersion, Serial: serial, Holder: alice})
		require.NoError(t, err)
		require.True(t, ans.OK, "%+v", ans)
		held[serial] = ans.Lease.Handle
	}
	// The call outlasts the stall by LostAfter: it ends after the gateways could have judged.
	sleeping := make(chan error, 1)
	var res broker.TaskResult
	id := broker.NewTaskID()
	go func() {
		var err error
		res, err = gw.Run(t.Context(), broker.TaskRequest{V: broker.WireVersion, ID: id, Serial: "n2-p1", Tool: "sleep",
			Args: json.RawMessage(fmt.Sprintf(`{"seconds":%g}`, (stallFor + broker.LostAfter).Seconds())), Lease: held["n2-p1"], Holder: alice}, nil)
		sleeping <- err
	}()
	require.Eventually(t, func() bool {
		d, _ := gw.Device("n2-p1")
		return d.Task != nil && d.Task.ID == id
	}, 10*time.Second, 5*time.Millisecond, "the sleep running on n2")

	link.Stall()
	time.Sleep(stallFor) // the stall is what is tested, not a wait
	link.Resume()
	resumed := time.Now()

	// A wrong verdict comes at the first check after the stall, or LostAfter after it for a
	// node not heard since; a gateway that cannot read its heartbeats waits up to twice that.
	f.noLossUntil(resumed.Add(2*broker.LostAfter+time.Second), "n1", "n2")
	select {
	case err := <-sleeping:
		require.NoError(t, err, "the call through the stall")
		require.Equal(t, broker.OutcomeSucceeded, res.Outcome, "the call through the stall: %+v", res)
	case <-time.After(20 * time.Second):
		t.Fatal("the call through the stall never ended")
	}
	// The lease held through the stall is still held: a call with it runs.
	res, err := gw.Run(t.Context(), broker.TaskRequest{V: broker.WireVersion, ID: broker.NewTaskID(), Serial: "n1-p1", Tool: "sleep",
		Args: json.RawMessage(`{"seconds":0.01}`), Lease: held["n1-p1"], Holder: alice}, nil)
	require.NoError(t, err)
	require.Equal(t, broker.OutcomeSucceeded, res.Outcome, "a call with the lease held through the stall: %+v", res)
	for _, g := range f.gateways {
		for _, serial := range []string{"n1-p1", "n2-p1"} {
			d, _ := g.client.Device(serial)
			require.Equal(t, broker.StateLeased, d.State, "%s, leased, after the stall", serial)
		}
	}
}

// A gateway whose own connection stalls while the server and every node go on (a half-dead
// link, a process the kernel does not schedule) hears no node either: that silence is its
// own, so it declares no node lost, nor does the gateway whose link works.
func TestGatewayLinkStallLosesNoNode(t *testing.T) {
	var link broker.StallLink
	f := startRoutedLossFarm(t, 2, func(addr string) func(string, string) string {
		link = broker.StartStallLink(t, addr)
		return func(part, url string) string {
			if part == "gateway-0" {
				return link.URL()
			}
			return url
		}
	}, "n1", "n2")

	link.Stall()
	time.Sleep(stallFor) // the stall is what is tested, not a wait
	require.Equal(t, []string{"n1", "n2"}, f.gateways[1].client.Nodes(), "the gateway whose link works lost a node")
	link.Resume()
	resumed := time.Now()

	f.noLossUntil(resumed.Add(2*broker.LostAfter+time.Second), "n1", "n2")
	f.waitAlive("n1", "n2")
}
