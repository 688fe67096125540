package test

import (
	"bufio"
	"context"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
)

// nodeProc is a running `corral node`.
type nodeProc struct {
	cmd   *exec.Cmd
	lines chan string   // its stderr, line by line
	done  chan struct{} // closed when it exited
	err   error
}

// startCorralNode starts `corral node` as NATS user node-<id> of the farm and waits until it
// is ready (true) or has exited (false); it returns what it logged until then.
func startCorralNode(t *testing.T, f *farmtest.Farm, id string) (*nodeProc, string, bool) {
	t.Helper()
	return startCorralUntil(t, "node ready", "node", "--node-id", id, "--nats-context", f.Context(broker.UserName(broker.RoleNode, id)),
		"--sim", "1", "--adb", "off", "--metrics", "", "--log-level", "info")
}

// startCorralUntil starts corral with args and waits until it logs a line containing ready
// (true) or exits (false).
func startCorralUntil(t *testing.T, ready string, args ...string) (*nodeProc, string, bool) {
	t.Helper()
	cmd := exec.Command(corral(t), args...)
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	p := &nodeProc{cmd: cmd, lines: make(chan string, 1000), done: make(chan struct{})}
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			select {
			case p.lines <- sc.Text():
			default:
			}
		}
		p.err = cmd.Wait()
		close(p.done)
		close(p.lines)
	}()
	t.Cleanup(func() { _ = cmd.Process.Kill(); <-p.done })
	var out strings.Builder
	deadline := time.After(60 * time.Second)
	for {
		select {
		case l, ok := <-p.lines:
			if !ok {
				return p, out.String(), false
			}
			out.WriteString(l + "\n")
			if strings.Contains(l, ready) {
				return p, out.String(), true
			}
		case <-deadline:
			t.Fatalf("corral %s neither ready nor stopped within 60s:\n%s", args[0], out.String())
		}
	}
}

// Issue 15, item 9: a second node with the same --node-id refuses to start, naming the id and
// what to do; once the first stops cleanly, a new one starts at once; once one dies, a new one
// starts after the farm declares it lost.
func TestSecondNodeWithTheSameIDRefuses(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{Nodes: 1, PhonesPerNode: 1, Auth: true})
	first, out, ok := startCorralNode(t, f, "n3")
	require.True(t, ok, "the first node did not start:\n%s", out)
	f.WaitDevices(2, broker.StateOnline)

	_, out, ok = startCorralNode(t, f, "n3")
	require.False(t, ok, "a second node n3 started:\n%s", out)
	assert.Contains(t, out, `node id "n3" is held by a running node`)
	assert.Contains(t, out, "another --node-id")
	// The first one still serves its device.
	farmtest.MustCall(t, f.Client("alice"), "tap_xy", args("serial", "sim-n3-01", "x", 0.5, "y", 0.5))

	require.NoError(t, first.cmd.Process.Signal(syscall.SIGINT))
	select {
	case <-first.done:
	case <-time.After(30 * time.Second):
		t.Fatal("the first node did not stop within 30s of SIGINT")
	}
	third, out, ok := startCorralNode(t, f, "n3")
	require.True(t, ok, "no node n3 could start after the first stopped:\n%s", out)

	// A node that dies keeps its id until the farm would declare it lost.
	require.NoError(t, third.cmd.Process.Kill())
	<-third.done
	killed := time.Now()
	var took time.Duration
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	for ctx.Err() == nil {
		if _, _, ok := startCorralNode(t, f, "n3"); ok {
			took = time.Since(killed)
			break
		}
	}
	require.NotZero(t, took, "no node n3 could start within 60s of the last one's death")
	t.Logf("a node n3 started %s after the previous one was killed (claims expire after %s)", took.Round(time.Millisecond), broker.LostAfter)
}
