package nodes_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/nodes"
)

// A node already known restarts in a full corral_calibrations: its epoch floor is an update
// of the same size. Written as a plain number ("0", then "1000000"), the restart's larger value
// was refused (10077) and the node did not start, so one node filling the bucket kept every
// other from restarting.
func TestNodeRestartsWithItsCalibrationsBucketFull(t *testing.T) {
	r := newRestartRig(t, false)
	first := r.startNode("n1", "n1-p1")
	r.waitDevice("n1-p1", "online", func(d broker.DeviceEntry) bool { return d.State == broker.StateOnline })
	first.Stop()

	// Another writer fills the bucket to the byte: big values, then small ones.
	filler := bytes.Repeat([]byte("x"), 60<<10)
	for _, size := range []int{60 << 10, 1 << 10, 16} {
		for i := 0; ; i++ {
			_, err := r.stores.Calibrations.Put(r.ctx, fmt.Sprintf("n9.fill-%d-%d", size, i), filler[:size])
			if err != nil {
				require.Contains(t, err.Error(), "maximum bytes exceeded", "filling the bucket")
				break
			}
		}
	}

	n := r.startNode("n1", "n1-p1")
	r.waitEntry("n1", "n1-p1", "online after the restart", func(e broker.DeviceEntry) bool { return e.State == broker.StateOnline })
	n.Stop()

	// A node new to the farm writes a new key, which a full bucket refuses: said as the bucket
	// being full, not as a permission it may lack.
	nc, err := broker.Connect(broker.ConnectOptions{URL: r.url, Name: "node-n2"}, r.log)
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	stores, err := broker.EnsureStores(r.ctx, nc, broker.StoreOptions{})
	require.NoError(t, err)
	_, err = nodes.Start(r.ctx, nodes.Config{ID: "n2", NC: nc, Stores: stores, Metrics: r.metrics, Log: r.log})
	require.Error(t, err)
	require.Contains(t, err.Error(), "corral_calibrations is full")
	require.False(t, strings.Contains(err.Error(), "may this node's NATS user write"), "%v", err)
}
