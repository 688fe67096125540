package broker

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// zombiePID is the id of a process of this host that has ended and stays unreaped (a zombie)
// until the test ends, as a node killed with -9 does under a parent slow to wait for it.
func zombiePID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Wait() })
	pid := cmd.Process.Pid
	require.Eventually(t, func() bool { return zombie(pid) }, 30*time.Second, 10*time.Millisecond,
		"process %d did not end, or zombie does not see that it did", pid)
	return pid
}

// A restart right after kill -9 was refused ("held by a running node, process 8598") while
// the dead node was a zombie: signal 0 reaches a zombie. Its claim is now waited out like a
// reaped process's, and a live process still holds its own.
func TestClaimOfAZombieProcessIsTakenOnceItExpires(t *testing.T) {
	host, err := os.Hostname()
	require.NoError(t, err)
	pid := zombiePID(t)
	assert.True(t, claimRecord{Host: host, PID: pid}.deadOn(host), "a zombie counted as a running holder")
	assert.False(t, claimRecord{Host: host, PID: livePID(t)}.deadOn(host), "a live process counted as dead")

	nc, kv := openClaims(t, claimTestTTL)
	putClaim(t, kv, "n-zombie", host, pid)
	c, err := ClaimNode(t.Context(), nc, "n-zombie", "boot-new", nil)
	require.NoError(t, err, "the id of a zombie process was not taken once its claim expired")
	c.Release(context.WithoutCancel(t.Context()))
}
