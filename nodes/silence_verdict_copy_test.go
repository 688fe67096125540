package nodes

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
)

// A lease request after a silence whose caller is asked, and the node hears of its loss as it
// asks: a copy of the verdict it answered already (the gateway's registry entries came first,
// here its loss event comes as the caller is asked) tells of no caller told since, as that
// gateway told its callers before it wrote anything: the lease is granted. Another gateway's
// verdict on the same loss (named otherwise), or one the node cannot name (an older
// gateway's event), may have told the caller just after it answered: refused node_lost.
func TestLeaseRequestAskedAsItsVerdictComesAgain(t *testing.T) {
	for _, c := range []struct {
		name    string
		event   func(entries string) string // the loss event's verdict, from that of the entries
		granted bool
	}{
		{"the same verdict", func(entries string) string { return entries }, true},
		{"another gateway's", func(string) string { return broker.EntryVerdict(broker.DeviceEntry{Updated: time.Now()}) }, false},
		{"an older gateway's", func(string) string { return "" }, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := startLossRig(t)
			verdict := r.lostInRegistry(t, "p1")
			r.afterSilence()
			asked := r.answerProbes(t, "c_copy", func() { r.lossEvent(t, c.event(verdict)) }, broker.CallerWaits)

			req := broker.AcquireRequest{V: broker.WireVersion, Serial: "p1", Holder: broker.Holder{Principal: "waits"}, ID: "acq_copy", Probe: "c_copy"}
			a := leaseAnswer(t, r.send(t, broker.EndpointAcquire, req))
			select {
			case id := <-asked:
				assert.Equal(t, broker.AcquireProbeID(req.ID), id, "the node asked about another call")
			default:
				t.Fatal("the node did not ask the caller")
			}
			if c.granted {
				assert.True(t, a.OK, "refused as a copy of the verdict the node answered came: %s %s", a.Code, a.Error)
				assert.Len(t, r.leases(t), 1, "leases held")
				return
			}
			assert.False(t, a.OK, "granted as a verdict the node had not heard came")
			assert.Equal(t, broker.CodeNodeLost, a.Code, a.Error)
			assert.Empty(t, r.leases(t), "leases held")
		})
	}
}

// A task after a silence whose caller is asked, as a copy of the verdict the node answered
// comes (its entries first, its event as the caller is asked): it runs, as its caller still
// waits. Another gateway's verdict would end it unstarted (TestTaskAskedAsTheNodeHearsItsLossAgainDoesNotRun).
func TestTaskAskedAsItsVerdictComesAgainRuns(t *testing.T) {
	r := startLossRig(t)
	verdict := r.lostInRegistry(t, "p1")
	r.afterSilence()
	asked := r.answerProbes(t, "c_copy", func() { r.lossEvent(t, verdict) }, broker.CallerWaits)

	before := len(r.phone.InputLog())
	id := broker.NewTaskID()
	task := broker.TaskRequest{V: broker.WireVersion, ID: id, Serial: "p1", Tool: "tap_xy", Args: json.RawMessage(`{"x":0.5,"y":0.5}`),
		Holder: broker.Holder{Principal: "waits"}, Probe: "c_copy"}
	var res broker.TaskResult
	select {
	case m := <-r.send(t, broker.EndpointTask, task):
		require.NoError(t, json.Unmarshal(m.Data, &res), string(m.Data))
	case <-time.After(15 * time.Second):
		t.Fatal("no answer to the task")
	}
	select {
	case got := <-asked:
		assert.Equal(t, id, got, "the node asked about another call")
	default:
		t.Fatal("the node did not ask the task's caller")
	}
	assert.Equal(t, broker.OutcomeSucceeded, res.Outcome, "%s: %s", res.Code, res.Error)
	assert.Greater(t, len(r.phone.InputLog()), before, "nothing reached the phone")
}

// A lease granted after the node answered a verdict (its entries), whose caller said it still
// waited, is kept when a copy of that verdict comes (its event, late): that gateway told its
// callers before it wrote either. Another gateway's verdict revokes it, as it may have told
// its caller since (TestSecondLossVerdictRevokesALeaseGrantedSinceTheFirst).
func TestLeaseGrantedBeforeItsVerdictComesAgainIsKept(t *testing.T) {
	for _, c := range []struct {
		name string
		same bool // the late event is of the verdict the node answered
	}{{"the same verdict", true}, {"another gateway's", false}} {
		t.Run(c.name, func(t *testing.T) {
			r := startLossRig(t)
			verdict := r.lostInRegistry(t, "p1")
			r.afterSilence()
			r.answerProbes(t, "c_late", nil, broker.CallerWaits)
			req := broker.AcquireRequest{V: broker.WireVersion, Serial: "p1", Holder: broker.Holder{Principal: "waits"}, ID: "acq_late", Probe: "c_late"}
			a := leaseAnswer(t, r.send(t, broker.EndpointAcquire, req))
			require.True(t, a.OK, "%s %s", a.Code, a.Error)

			if !c.same {
				verdict = broker.EntryVerdict(broker.DeviceEntry{Updated: time.Now()})
			}
			r.lossEvent(t, verdict)
			if c.same {
				assert.Len(t, r.leases(t), 1, "the lease was revoked by a copy of the verdict answered before it was granted")
				return
			}
			require.Eventually(t, func() bool { return len(r.leases(t)) == 0 }, 15*time.Second, 5*time.Millisecond,
				"another gateway's verdict left the lease granted since the first")
		})
	}
}

// lostInRegistry writes serial's registry entry offline as a gateway's verdict on the node's
// loss does, waits until the node has answered it, and returns the verdict's name.
func (r *lossRig) lostInRegistry(t *testing.T, serial string) string {
	t.Helper()
	stores, err := broker.EnsureStores(t.Context(), r.gw, broker.StoreOptions{})
	require.NoError(t, err)
	key := broker.RegistryKey("n1", serial)
	kve, err := stores.Registry.Get(t.Context(), key)
	require.NoError(t, err)
	var e broker.DeviceEntry
	require.NoError(t, json.Unmarshal(kve.Value(), &e))
	e.State, e.Reason, e.Holder, e.Updated = broker.StateOffline, "node n1 lost: no heartbeat for 2.5s", "", time.Now()
	require.True(t, broker.DeclaredLost(e))
	b, err := json.Marshal(e)
	require.NoError(t, err)
	_, err = stores.Registry.Update(t.Context(), key, b, kve.Revision())
	require.NoError(t, err)
	require.Eventually(t, func() bool { return r.said("the farm declared this node lost (its registry entries say so)") },
		15*time.Second, 5*time.Millisecond, "the node did not answer the verdict's entry")
	return broker.EntryVerdict(e)
}

// lossEvent sends the node's loss event as a gateway does, its header naming verdict ("": an
// older gateway's, which names none), and waits until the node has heard it again (the node
// answered a verdict already). It runs off the test's goroutine (a probe's handler): it
// reports, not stops, a node that does not hear it.
func (r *lossRig) lossEvent(t *testing.T, verdict string) {
	heard := func() int {
		return r.count("heard again of the loss this node answered") + r.count("declared this node lost again")
	}
	before := heard()
	m := nats.NewMsg(fmt.Sprintf(broker.EventNodeT, "n1", "lost"))
	m.Data = fmt.Appendf(nil, `{"v":1,"kind":"node","node":"n1","what":"lost","at":%q}`, time.Now().Format(time.RFC3339Nano))
	if verdict != "" {
		m.Header.Set(broker.LossVerdictHeader, verdict)
	}
	if err := r.gw.PublishMsg(m); err != nil {
		t.Errorf("loss event: %v", err)
		return
	}
	ctx, cancel := context.WithTimeout(t.Context(), 15*time.Second)
	defer cancel()
	for heard() == before {
		select {
		case <-ctx.Done():
			t.Errorf("the node did not hear the loss event")
			return
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// count is how many lines the node logged whose message contains text.
func (r *lossRig) count(text string) (n int) {
	for _, rec := range r.logs.Records() {
		if strings.Contains(rec.Message, text) {
			n++
		}
	}
	return n
}
