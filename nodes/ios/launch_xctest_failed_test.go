package ios

import (
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/internal/logtest"
)

// With the default --wda-launch xctest, a WebDriverAgentRunner that go-ios cannot run (the
// simulated iPhone has no testmanagerd, as a phone without the developer disk image) is the
// device's reason, with what to check, and a WARN. Before, the reason said "restarted it,
// waiting for its answer" for ever.
func TestXCTestLaunchFailureIsTheReason(t *testing.T) {
	var logs logtest.Buffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	sims := oneSim(t, log)
	t.Setenv("USBMUXD_SOCKET_ADDRESS", sims.Addr()) // go-ios dials it itself
	reg := attachLaunching(t, sims, &XCTestLauncher{Log: log}, log)
	sims.Devices()[0].Unhandle(DefaultWDAPort) // WebDriverAgent dies; go-ios cannot start it

	want := "go-ios's WebDriverAgentRunner run ended (" + DefaultWDABundleID + ": "
	eventually(t, 10*time.Second, func() bool {
		err, _ := reg.healthOf("ios-sim-01")
		return err != nil && strings.Contains(err.Error(), want) && strings.Contains(err.Error(), "installed on the iPhone")
	}, "the device's reason naming the failed WebDriverAgentRunner run")
	err, _ := reg.healthOf("ios-sim-01")
	t.Logf("reason: %v", err)
	line := logs.Line("WebDriverAgentRunner ended")
	if !strings.Contains(line, "level=WARN") || !strings.Contains(line, "bundle="+DefaultWDABundleID) {
		t.Errorf("the log line: %q", line)
	}
}
