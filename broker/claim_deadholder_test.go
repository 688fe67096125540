package broker

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/logtest"
)

// deadPID is the id of a process of this host that has ended (and been reaped).
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	require.NoError(t, cmd.Run())
	return cmd.Process.Pid
}

// livePID is the id of a process of this host that runs until the test ends.
func livePID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("sleep", "600")
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return cmd.Process.Pid
}

// putClaim writes a claim of node as the process pid on host left it.
func putClaim(t *testing.T, kv jetstream.KeyValue, node, host string, pid int) {
	t.Helper()
	_, err := kv.Put(t.Context(), node, claimOf(node, host, pid))
	require.NoError(t, err)
}

// claimOf is the claim the process pid on host wrote for node.
func claimOf(node, host string, pid int) []byte {
	data, _ := json.Marshal(claimRecord{Node: node, Boot: "boot-old", Host: host, PID: pid, Since: time.Now().UTC()})
	return data
}

// A node restarted right after a SIGKILL found its id claimed by its own dead process and was
// refused ("held by a running node, process 5027") until the claim expired. It now waits for
// the claim to expire and takes the id, saying so.
func TestClaimOfADeadProcessOfThisHostIsTakenOnceItExpires(t *testing.T) {
	nc, kv := openClaims(t, claimTestTTL)
	host, err := os.Hostname()
	require.NoError(t, err)
	putClaim(t, kv, "n1", host, deadPID(t))

	var log logtest.Buffer
	start := time.Now()
	c, err := ClaimNode(t.Context(), nc, "n1", "boot-new", slog.New(slog.NewTextHandler(&log, nil)))
	require.NoError(t, err, "the id of a dead process was not taken once its claim expired")
	t.Cleanup(func() { c.Release(context.WithoutCancel(t.Context())) })
	assert.Less(t, time.Since(start), claimTTL+claimExpiryGrace+5*time.Second, "the wait outlasted the claim's expiry")
	boot, _ := claimBoot(t, kv, "n1")
	assert.Equal(t, "boot-new", boot)
	assert.Contains(t, log.String(), "waiting for its claim to expire")
	assert.Contains(t, log.String(), "node id taken once the claim of its last holder, no longer running, expired")
}

// A claim of a live process, or of another host's, is refused at once, and a dead process's
// claim that is refreshed while the node waits (a live holder after all) is refused too: a
// live node's id is never taken.
func TestClaimOfALiveHolderIsRefusedAtOnce(t *testing.T) {
	nc, kv := openClaims(t, time.Minute)
	host, err := os.Hostname()
	require.NoError(t, err)
	for name, claim := range map[string]struct {
		node, host string
		pid        int
	}{
		"live process here":      {"n-live", host, livePID(t)},
		"dead process elsewhere": {"n-elsewhere", host + "-other", deadPID(t)},
	} {
		t.Run(name, func(t *testing.T) {
			putClaim(t, kv, claim.node, claim.host, claim.pid)
			start := time.Now()
			_, err := ClaimNode(t.Context(), nc, claim.node, "boot-new", nil)
			require.ErrorIs(t, err, ErrNodeIDInUse)
			assert.Contains(t, err.Error(), "is held by a running node")
			assert.Less(t, time.Since(start), claimTTL, "a live holder's claim was waited on")
		})
	}
	t.Run("refreshed while waiting", func(t *testing.T) {
		pid := deadPID(t)
		putClaim(t, kv, "n-refreshed", host, pid)
		ctx, cancel := context.WithCancel(t.Context())
		refreshed := make(chan struct{})
		go func() {
			defer close(refreshed)
			for ctx.Err() == nil {
				_, _ = kv.Put(ctx, "n-refreshed", claimOf("n-refreshed", host, pid))
				select {
				case <-ctx.Done():
				case <-time.After(HeartbeatInterval):
				}
			}
		}()
		_, err := ClaimNode(t.Context(), nc, "n-refreshed", "boot-new", nil)
		cancel()
		<-refreshed
		require.ErrorIs(t, err, ErrNodeIDInUse)
		boot, _ := claimBoot(t, kv, "n-refreshed")
		assert.Equal(t, "boot-old", boot, "a refreshed claim was taken over")
	})
}
