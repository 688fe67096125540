package nodes

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/actors"
	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/broker/embedded"
	"github.com/corral-farm/corral/internal/logtest"
	"github.com/corral-farm/corral/nodes/sim"
)

// lossRig is node n1 with a simulated phone p1, on an embedded server, and a gateway's
// connection to the same server that sends the node requests and answers its questions.
type lossRig struct {
	n     *Node
	gw    *nats.Conn
	phone *sim.Phone
	logs  *logtest.Recorder
}

func startLossRig(t *testing.T) *lossRig {
	t.Helper()
	log := slog.New(slog.DiscardHandler)
	ns, err := embedded.Start(embedded.Options{Port: -1, StoreDir: t.TempDir()}, log)
	require.NoError(t, err)
	t.Cleanup(func() { ns.Shutdown(); ns.WaitForShutdown() })
	nodeNC, err := broker.Connect(broker.ConnectOptions{URL: ns.ClientURL(), Name: "node-n1"}, log)
	require.NoError(t, err)
	t.Cleanup(nodeNC.Close)
	stores, err := broker.EnsureStores(t.Context(), nodeNC, broker.StoreOptions{})
	require.NoError(t, err)
	r := &lossRig{logs: &logtest.Recorder{}, phone: sim.New("p1")}
	t.Cleanup(func() { _ = r.phone.Close() })
	r.n, err = Start(context.Background(), Config{ID: "n1", NC: nodeNC, Stores: stores, Metrics: actors.NewMetrics(prometheus.NewRegistry()),
		Log: slog.New(r.logs)})
	require.NoError(t, err)
	t.Cleanup(r.n.Stop)
	r.n.AddDriver(r.phone)
	require.Eventually(t, func() bool {
		e, err := stores.Registry.Get(t.Context(), broker.RegistryKey("n1", "p1"))
		var d broker.DeviceEntry
		return err == nil && json.Unmarshal(e.Value(), &d) == nil && d.State == broker.StateOnline
	}, 30*time.Second, 5*time.Millisecond, "p1 online")
	r.gw, err = nats.Connect(ns.ClientURL(), nats.Name("gateway"))
	require.NoError(t, err)
	t.Cleanup(r.gw.Close)
	return r
}

// afterSilence has the node take what comes as it would just after a silence long enough for
// the farm to declare it lost: it asks the callers of its tasks and lease requests.
func (r *lossRig) afterSilence() {
	moveOn(&r.n.silence.askUntil, r.n.silence.now()+int64(time.Hour))
}

// answerProbes answers the node's questions on the gateway's probe token as a gateway whose
// calls wait does (answer: broker.CallerWaits; nil: it never answers), first running before;
// it passes on the id each question names.
func (r *lossRig) answerProbes(t *testing.T, token string, before func(), answer []byte) <-chan string {
	t.Helper()
	asked := make(chan string, 16)
	sub, err := r.gw.Subscribe(fmt.Sprintf(broker.ProgressT, "n1", token), func(m *nats.Msg) {
		asked <- string(m.Data)
		if before != nil {
			before()
		}
		if answer != nil {
			_ = r.gw.Publish(m.Reply, answer)
		}
	})
	require.NoError(t, err)
	t.Cleanup(func() { _ = sub.Unsubscribe() })
	require.NoError(t, r.gw.Flush())
	return asked
}

// send sends req to the node's endpoint as a gateway does, and passes on what comes back to
// its inbox. Requests sent one after the other reach the node in that order.
func (r *lossRig) send(t *testing.T, endpoint string, req any) <-chan *nats.Msg {
	t.Helper()
	data, err := json.Marshal(req)
	require.NoError(t, err)
	answers := make(chan *nats.Msg, 4)
	inbox := r.gw.NewInbox()
	sub, err := r.gw.ChanSubscribe(inbox, answers)
	require.NoError(t, err)
	t.Cleanup(func() { _ = sub.Unsubscribe() })
	require.NoError(t, r.gw.PublishRequest(fmt.Sprintf(broker.NodeGroupT, "n1")+"."+endpoint, inbox, data))
	return answers
}

// leaseAnswer waits for the answer to a lease request sent.
func leaseAnswer(t *testing.T, answers <-chan *nats.Msg) broker.LeaseAnswer {
	t.Helper()
	var a broker.LeaseAnswer
	select {
	case m := <-answers:
		require.NoError(t, json.Unmarshal(m.Data, &a), string(m.Data))
	case <-time.After(15 * time.Second):
		t.Fatal("no answer to the lease request")
	}
	return a
}

// leases lists the node's leases, as its scheduler holds them.
func (r *lossRig) leases(t *testing.T) []broker.Lease {
	t.Helper()
	answer := make(chan broker.LeasesAnswer, 1)
	r.n.system.Root.Send(r.n.sched, actors.ListLeases{Reply: func(a broker.LeasesAnswer) { answer <- a }})
	select {
	case a := <-answer:
		return a.Leases
	case <-time.After(15 * time.Second):
		t.Fatal("the scheduler did not list its leases")
		return nil
	}
}

// said says whether the node logged a line whose message or an attribute contains text.
func (r *lossRig) said(text string) bool {
	for _, rec := range r.logs.Records() {
		line := rec.Message
		rec.Attrs(func(a slog.Attr) bool { line += " " + a.String(); return true })
		if strings.Contains(line, text) {
			return true
		}
	}
	return false
}
