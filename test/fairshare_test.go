package test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/mcp"
)

// The policy's fair-share keys hold through the front door: max_devices refuses a lease beyond
// it at the gateway and frees a place on release; max_queued refuses a principal's second
// waiter on a node, and the node shows the principal's waiters in /metrics.
func TestFairSharesOfThePolicy(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 2, Quiet: true})
	const teamToken, otherToken = "team-6f1e2d3c4b5a69788796a5b4", "other-0a1b2c3d4e5f60718293"
	dir := t.TempDir()
	policy := "principals:\n" +
		"  - name: team\n    token: " + teamToken + "\n    max_devices: 1\n    max_queued: 1\n    weight: 2\n" +
		"  - name: other\n    token: " + otherToken + "\n"
	policyFile := filepath.Join(dir, "policy.yaml")
	if err := os.WriteFile(policyFile, []byte(policy), 0o600); err != nil {
		t.Fatal(err)
	}
	url, _ := authGateway(t, f, policyFile, 2)
	team, err := authClient(t, url, "team-client", teamToken)
	if err != nil {
		t.Fatal(err)
	}
	other, err := authClient(t, url, "other-client", otherToken)
	if err != nil {
		t.Fatal(err)
	}

	var first mcp.AcquireResult
	farmtest.Structured(t, farmtest.MustCall(t, team, "acquire_device", args("serial", "n1-p1")), &first)
	res := farmtest.Call(t, team, "acquire_device", args("serial", "n1-p2"))
	if !res.IsError || !strings.Contains(farmtest.Text(res), "max_devices 1") {
		t.Fatalf("a second lease beyond max_devices 1: %s", farmtest.Text(res))
	}
	farmtest.MustCall(t, team, "release_device", args("serial", "n1-p1", "lease", first.Lease.Handle))
	var second mcp.AcquireResult
	farmtest.Structured(t, farmtest.MustCall(t, team, "acquire_device", args("serial", "n1-p2")), &second)
	farmtest.MustCall(t, team, "release_device", args("serial", "n1-p2", "lease", second.Lease.Handle))

	// other holds n1-p1: team's first call waits in its queue, its second is one too many.
	var held mcp.AcquireResult
	farmtest.Structured(t, farmtest.MustCall(t, other, "acquire_device", args("serial", "n1-p1")), &held)
	waiting := farmtest.Go(t, team, "get_screen_size", args("serial", "n1-p1", "wait_seconds", 30))
	farmtest.Eventually(t, 10*time.Second, func() bool {
		v, _ := farmGauge(t, f, "corral_queue_waiting", map[string]string{"principal": "team"})
		return v == 1
	}, "team's waiting call never showed in corral_queue_waiting")
	res = farmtest.Call(t, team, "get_screen_size", args("serial", "n1-p1", "wait_seconds", 5))
	if !res.IsError || !strings.Contains(farmtest.Text(res), "max_queued") {
		t.Fatalf("a second waiter beyond max_queued 1: %s", farmtest.Text(res))
	}
	farmtest.MustCall(t, other, "release_device", args("serial", "n1-p1", "lease", held.Lease.Handle))
	if res := (<-waiting).Get(t); res.IsError {
		t.Fatalf("team's waiting call after the release: %s", farmtest.Text(res))
	}
}
