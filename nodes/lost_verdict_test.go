package nodes

import (
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/nodes/sim"
)

// Of one loss the node revokes and speaks once: the same verdict heard again (the event, an
// entry a gateway wrote before the node answered) is quiet; an entry a gateway wrote over the
// node's answer (its epoch is the answer's) is a late verdict, said at INFO as it is shown again.
func TestLossVerdictHeardAgainIsSaidOnlyWhenWrittenOverTheAnswer(t *testing.T) {
	ctx, stores, _ := mirrorStores(t)
	n, logs := startLogged(t, ctx, stores)
	p := sim.New("p1")
	t.Cleanup(func() { _ = p.Close() })
	n.AddDriver(p)
	var before uint64
	require.Eventually(t, func() bool {
		e, ok := n.mirror.epochs()["p1"]
		before = e
		return ok
	}, 15*time.Second, 5*time.Millisecond, "the device never shown")
	said := func() (lines []string) {
		for _, r := range logs.Records() {
			if strings.Contains(r.Message, "lost") && r.Level >= slog.LevelInfo {
				lines = append(lines, r.Level.String()+" "+r.Message)
			}
		}
		return lines
	}
	lost := func(epoch uint64) *broker.DeviceEntry {
		return &broker.DeviceEntry{V: broker.WireVersion, Serial: "p1", Node: "n1", State: broker.StateOffline,
			Reason: "node n1 lost: no heartbeat for 2.5s", Epoch: epoch}
	}

	n.declaredLost("", nil)
	n.declaredLost(" (its registry entries say so)", lost(before)) // the same verdict's entry
	n.declaredLost("", nil)                                        // a second gateway's event
	require.Len(t, said(), 1, "%q", said())
	assert.True(t, strings.HasPrefix(said()[0], "WARN the farm declared this node lost;"), said()[0])

	n.declaredLost(" (its registry entries say so)", lost(before+1)) // over the answer
	require.Len(t, said(), 2, "a late verdict over the answer not said: %q", said())
	assert.True(t, strings.HasPrefix(said()[1], "INFO the farm declared this node lost again (its registry"), said()[1])
}
