package broker

import (
	"testing"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// On a 3-server cluster with replicated (R3) stores, an older Corral's stores, which allowed
// rollups, refuse them once a gateway's start has updated them: nats-server takes the update
// of a replicated stream, and its leader refuses the rollup before proposing it to the others.
func TestReplicatedStoresRefuseRollupsOnceUpdated(t *testing.T) {
	ctx, nc, js, s := replicatedStores(t)
	// As an older Corral left them: rollups allowed.
	for _, name := range []string{kvStream(RegistryBucket), objStream(ScreenshotBucket)} {
		st, err := js.Stream(ctx, name)
		require.NoError(t, err)
		cfg := st.CachedInfo().Config
		cfg.AllowRollup = true
		_, err = js.UpdateStream(ctx, cfg)
		require.NoError(t, err, name)
	}
	putDevice(t, s, DeviceEntry{Serial: "d1", Node: "nB", State: StateOnline})
	_, err := EnsureStores(ctx, nc, StoreOptions{}) // a gateway's start
	require.NoError(t, err)

	for _, subject := range []string{"$KV.corral_devices.nA.zz", "$O.corral_screenshots.M.zz"} {
		m := nats.NewMsg(subject)
		m.Header.Set(jetstream.MsgRollup, jetstream.MsgRollupAll)
		_, err := js.PublishMsg(ctx, m)
		var api *jetstream.APIError
		if assert.ErrorAs(t, err, &api, subject) {
			assert.Contains(t, api.Description, "rollup not permitted", subject)
		}
	}
	st, err := js.Stream(ctx, kvStream(RegistryBucket))
	require.NoError(t, err)
	assert.Equal(t, 3, st.CachedInfo().Config.Replicas, "the update kept the replicas")
	_, err = s.Registry.Get(ctx, RegistryKey("nB", "d1"))
	assert.NoError(t, err, "nB's entry")
}
