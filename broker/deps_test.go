package broker

import (
	"os/exec"
	"strings"
	"testing"
)

// What only talks to NATS (the gateway, the CLI) does not link the server: it lives in
// broker/embedded.
func TestBrokerLinksNoNATSServer(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	for _, dep := range strings.Fields(string(out)) {
		if strings.HasPrefix(dep, "github.com/nats-io/nats-server/") {
			t.Errorf("broker depends on %s; keep the server in broker/embedded", dep)
		}
	}
}
