package android

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/nodes/tools"
)

// An app that is not installed is the caller's mistake on Android as on an iPhone: bad_input
// through the tools and the real driver on a simulated phone behind the real adb server, with
// the same words; not driver_error, which counts against the device. WAKEUP is a button.
func TestCallerMistakesOnAndroidAreBadInput(t *testing.T) {
	dev, d := newDevice(t)
	run := func(tool, args string) error {
		t.Helper()
		_, err := tools.DefaultOps()[tool].Run(t.Context(), &tools.Task{Driver: d, Args: json.RawMessage(args)})
		return err
	}
	for _, tool := range []string{"app_launch", "app_terminate", "app_uninstall", "app_clear"} {
		err := run(tool, `{"packageName":"com.nope.app"}`)
		if got := tools.ErrorCode(err); got != broker.CodeBadInput {
			t.Errorf("%s of an app not installed: code %s, want bad_input (%v)", tool, got, err)
		}
		if err == nil || !strings.Contains(err.Error(), "com.nope.app is not installed") || !strings.Contains(err.Error(), "list_packages") {
			t.Errorf("%s of an app not installed: %v", tool, err)
		}
	}
	if err := run("press_button", `{"button":"WAKEUP"}`); err != nil {
		t.Fatalf("press_button WAKEUP: %v", err)
	}
	if cmds := strings.Join(dev.Commands(), "\n"); !strings.Contains(cmds, "KEYCODE_WAKEUP") {
		t.Errorf("WAKEUP sent no KEYCODE_WAKEUP: %s", cmds)
	}
}
