package nodes

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
)

// Two lease requests for one device after a silence, their callers asked at the same time:
// the first one's gateway does not answer (it is refused once its question times out, after
// callerCheck), the second one's says at once that its caller waits. They are taken in their
// order of arrival: the second is granted only after the first was refused, not before.
func TestLeaseRequestsAskedAfterASilenceKeepTheirOrder(t *testing.T) {
	r := startLossRig(t)
	r.afterSilence()
	mute := r.answerProbes(t, "c_mute", nil, nil)
	r.answerProbes(t, "c_waits", nil, broker.CallerWaits)

	first := r.send(t, broker.EndpointAcquire, broker.AcquireRequest{V: broker.WireVersion, Serial: "p1", Holder: broker.Holder{Principal: "first"},
		ID: "acq_first", Probe: "c_mute", WaitMS: 30_000})
	second := r.send(t, broker.EndpointAcquire, broker.AcquireRequest{V: broker.WireVersion, Serial: "p1", Holder: broker.Holder{Principal: "second"},
		ID: "acq_second", Probe: "c_waits", WaitMS: 30_000})
	select {
	case <-mute:
	case <-time.After(15 * time.Second):
		t.Fatal("the first request's caller was not asked")
	}

	var held []broker.Lease
	require.Eventually(t, func() bool { held = r.leases(t); return len(held) > 0 }, 15*time.Second, 2*time.Millisecond, "the second request granted")
	refusedFirst := r.said("did not say whether its caller still waits")
	require.Len(t, held, 1)
	assert.Equal(t, "second", held[0].Holder.Principal)
	assert.True(t, refusedFirst, "the second request was granted before the first, which came before it, was refused")

	a := leaseAnswer(t, first)
	assert.False(t, a.OK, "the request whose gateway did not answer was granted")
	assert.Equal(t, broker.CodeNodeLost, a.Code, a.Error)
	a = leaseAnswer(t, second)
	assert.True(t, a.OK, "%s %s", a.Code, a.Error)
}
