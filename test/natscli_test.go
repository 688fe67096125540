package test

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/corral-farm/corral/internal/farmtest"
)

// Operators see the nodes with `nats micro` and the registry with `nats kv` (natscli v0.5.0).
func TestOperatorsSeeTheFarmWithNATSCLI(t *testing.T) {
	nats := tool(t, "nats")
	f := farmtest.Start(t, farmtest.Options{Nodes: 2, PhonesPerNode: 2})
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.CommandContext(t.Context(), nats, append([]string{"--server", f.URL, "--no-context"}, args...)...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("nats %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	ls := run("micro", "ls")
	contains(t, ls, "corral-node", "edge node n1", "edge node n2")
	contains(t, run("micro", "info", "corral-node"), "Endpoints", ".task", ".acquire", ".abort")
	contains(t, run("micro", "stats", "corral-node"), "corral-node")
	contains(t, run("kv", "ls", "corral_devices"), "n1-p1", "n2-p2")
	contains(t, run("kv", "get", "corral_devices", "n1.n1-p2", "--raw"), `"state":"online"`, `"node":"n1"`)
	contains(t, run("stream", "info", "CORRAL_EVENTS"), "corral.v1.events.>")
}
