package farmtest

import (
	"runtime"
	"strings"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// sweepers counts the goroutines running a gateway's idle-session sweeper.
func sweepers() int {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			return strings.Count(string(buf[:n]), "mcp.(*sessions).sweepIdle")
		}
		buf = make([]byte, 2*len(buf))
	}
}

// waitSweepers fails the test unless want sweepers run before a generous deadline.
func waitSweepers(t *testing.T, want int, what string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for sweepers() != want {
		if time.Now().After(deadline) {
			t.Fatalf("%s: %d session sweepers run, want %d", what, sweepers(), want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A stopped gateway ends its idle-session sweeper (mcp.Gateway.Close) rather than leaving it
// to run until its last session expires, half an hour on, in a test binary that lives on.
func TestStopGatewayEndsItsSessionSweeper(t *testing.T) {
	f := Start(t, Options{PhonesPerNode: 1, Quiet: true})
	f.ClientWithProtocol("sweep", mcpgo.LATEST_LEGACY_PROTOCOL_VERSION) // a revision with sessions
	waitSweepers(t, 1, "a live session starts the sweeper")

	f.StopGateway()
	waitSweepers(t, 0, "the sweeper runs on after StopGateway")
}
