package mcp

import (
	"os/exec"
	"strings"
	"testing"
)

// The gateway is a stateless router: it links neither the actor runtime of the nodes nor the
// NATS server, only the tools' contract (nodes/tools, nodes/device) and the NATS client.
func TestGatewayLinksNoRuntime(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	for _, dep := range strings.Fields(string(out)) {
		if strings.Contains(dep, "protoactor") || strings.HasPrefix(dep, "github.com/nats-io/nats-server/") ||
			dep == "github.com/corral-farm/corral/nodes" || dep == "github.com/corral-farm/corral/actors" {
			t.Errorf("the gateway depends on %s", dep)
		}
	}
}
