package broker

import (
	"encoding/json"
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker/embedded"
	"github.com/corral-farm/corral/internal/logtest"
)

// claimTestTTL stands for claimTTL: short, so that a claim expires within a test, long
// enough that a loaded machine sees a refreshed claim before it expires again.
const claimTestTTL = 2 * time.Second

// openClaims starts an embedded NATS with the claims bucket whose entries expire after ttl.
func openClaims(t *testing.T, ttl time.Duration) (*nats.Conn, jetstream.KeyValue) {
	t.Helper()
	nc := embeddedNATS(t)
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	kv, err := js.CreateKeyValue(t.Context(), jetstream.KeyValueConfig{Bucket: NodeBucket, TTL: ttl})
	require.NoError(t, err)
	return nc, kv
}

// embeddedNATS starts an embedded NATS with JetStream for the test and connects to it.
func embeddedNATS(t *testing.T) *nats.Conn {
	t.Helper()
	ns, err := embedded.Start(embedded.Options{Port: -1, StoreDir: t.TempDir()}, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	t.Cleanup(func() { ns.Shutdown(); ns.WaitForShutdown() })
	nc, err := nats.Connect(ns.ClientURL())
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	return nc
}

// heldClaim is a claim whose keep-alive the test ticks by hand: between ticks its holder is
// silent, as a stopped or cut-off process is.
type heldClaim struct {
	*NodeClaim
	tick chan time.Time
	log  *logtest.Buffer
}

func holdClaim(t *testing.T, nc *nats.Conn, node, boot string) *heldClaim {
	t.Helper()
	h := &heldClaim{tick: make(chan time.Time), log: &logtest.Buffer{}}
	c, err := claimNode(t.Context(), nc, node, boot, slog.New(slog.NewTextHandler(h.log, nil)), h.tick)
	require.NoError(t, err)
	h.NodeClaim = c
	t.Cleanup(func() { c.Release(t.Context()) })
	return h
}

// refresh wakes the keep-alive once (it has the tick when this returns).
func (h *heldClaim) refresh(t *testing.T) {
	t.Helper()
	select {
	case h.tick <- time.Now():
	case <-h.done:
		t.Fatal("the claim's keep-alive has stopped")
	}
}

// refreshed wakes the keep-alive until a refresh writes the claim (or finds it taken over),
// as its ticker goes on waking it: a refresh slower than HeartbeatInterval (a loaded machine)
// fails, and one tick alone would leave the claim as it was. It returns with no refresh under
// way.
func (h *heldClaim) refreshed(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		h.refresh(t) // taken once the previous refresh is done: the revision read next is its
		was := h.revision()
		ends := time.Now().Add(2 * HeartbeatInterval) // a refresh gives up after HeartbeatInterval
		for time.Now().Before(ends) {
			if h.revision() != was || h.isLost() {
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	t.Fatalf("no refresh of the claim wrote it in 20s; the holder logged:\n%s", h.log.String())
}

// revision is the claim's revision as its holder last wrote or adopted it.
func (h *heldClaim) revision() uint64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.rev
}

func (h *heldClaim) isLost() bool {
	select {
	case <-h.Lost():
		return true
	default:
		return false
	}
}

// claimBoot reads whose claim a key holds, and its revision ("" if there is none).
func claimBoot(t *testing.T, kv jetstream.KeyValue, node string) (string, uint64) {
	t.Helper()
	e, err := kv.Get(t.Context(), node)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return "", 0
	}
	require.NoError(t, err)
	var r claimRecord
	require.NoError(t, json.Unmarshal(e.Value(), &r))
	return r.Boot, e.Revision()
}

// A node silent for longer than claimTTL (SIGSTOP, a swapped-out host, a cut link) finds its
// claim expired when it returns. No other node took the id, so it takes it again and goes on
// serving (the farm declared it lost; its epochs fence old holders), saying so at warn; it is
// not a takeover. The same holds for a key deleted meanwhile.
func TestClaimExpiredWhileSilentIsTakenAgain(t *testing.T) {
	nc, kv := openClaims(t, claimTestTTL)
	for _, how := range []string{"expired", "deleted"} {
		t.Run(how, func(t *testing.T) {
			node := "n-" + how
			h := holdClaim(t, nc, node, "boot-a")
			_, created := claimBoot(t, kv, node) // not 1: the subtests share the bucket
			h.refreshed(t)
			if _, rev := claimBoot(t, kv, node); rev <= created {
				t.Fatalf("the claim was not refreshed: revision %d, created at %d", rev, created)
			}

			if how == "deleted" {
				require.NoError(t, kv.Delete(t.Context(), node))
			}
			require.Eventually(t, func() bool { b, _ := claimBoot(t, kv, node); return b == "" }, 10*claimTestTTL, 20*time.Millisecond,
				"the claim of a silent holder did not go")

			h.refreshed(t) // the holder returns
			require.Contains(t, h.log.String(), "node id claimed again", "the holder did not take its claim again")
			boot, rev := claimBoot(t, kv, node)
			assert.Equal(t, "boot-a", boot, "the key does not hold the returning holder's claim")
			assert.False(t, h.isLost(), "a claim that expired was reported taken over")
			assert.Contains(t, h.log.String(), "level=WARN")
			assert.NotContains(t, h.log.String(), "taken over")

			// It holds the id again: another node is refused, and its own refreshes go on.
			_, err := ClaimNode(t.Context(), nc, node, "boot-b", nil)
			require.ErrorIs(t, err, ErrNodeIDInUse)
			h.refreshed(t)
			_, r := claimBoot(t, kv, node)
			assert.Greater(t, r, rev, "the claim taken again is not refreshed")
			assert.False(t, h.isLost())
		})
	}
}

// A claim another boot of the node id took while its holder was silent is a takeover: the
// returning holder's Lost closes and the key stays the other boot's.
func TestClaimTakenByAnotherBootIsLost(t *testing.T) {
	nc, kv := openClaims(t, claimTestTTL)
	h := holdClaim(t, nc, "n1", "boot-a")
	require.Eventually(t, func() bool { b, _ := claimBoot(t, kv, "n1"); return b == "" }, 10*claimTestTTL, 20*time.Millisecond,
		"the claim of a silent holder did not expire")
	other, err := ClaimNode(t.Context(), nc, "n1", "boot-b", nil)
	require.NoError(t, err, "the id of a silent node was not free once its claim expired")
	t.Cleanup(func() { other.Release(t.Context()) })

	h.refreshed(t)
	if !h.isLost() {
		t.Fatalf("a claim another boot holds was not reported taken over; the holder logged:\n%s", h.log.String())
	}
	assert.Contains(t, h.log.String(), "node id taken over")
	boot, _ := claimBoot(t, kv, "n1")
	assert.Equal(t, "boot-b", boot, "the returning holder took the id back from the node that holds it")
}

// A key that holds this boot's own claim at a revision it did not see (a refresh whose answer
// was lost) is the holder's: adopted, not a takeover.
func TestClaimOwnRevisionIsAdopted(t *testing.T) {
	nc, kv := openClaims(t, time.Minute)
	h := holdClaim(t, nc, "n1", "boot-a")
	e, err := kv.Get(t.Context(), "n1")
	require.NoError(t, err)
	rev, err := kv.Put(t.Context(), "n1", e.Value())
	require.NoError(t, err)

	h.refreshed(t) // finds its own claim at rev, adopts it
	h.refreshed(t) // refreshes from rev
	if _, r := claimBoot(t, kv, "n1"); r <= rev {
		t.Fatalf("the holder stopped refreshing its claim at revision %d; it logged:\n%s", r, h.log.String())
	}
	assert.False(t, h.isLost(), "the holder's own claim was reported taken over")
}
