package tools_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/nodes/sim"
	"github.com/corral-farm/corral/nodes/tools"
)

// A URL given to app_launch on a device that launches packages (the simulated phone quotes
// what it has not installed) keeps its password out of the error, which goes to the task
// record, and keeps the error's code.
func TestAppLaunchErrorShowsNoURLPassword(t *testing.T) {
	_, err := tools.DefaultOps()["app_launch"].Run(context.Background(), &tools.Task{Driver: sim.New("sim-local-01"),
		Args: json.RawMessage(`{"packageName":"http://user:pw-planted-3c1@example.test/"}`)})
	if err == nil {
		t.Fatal("a URL was launched as a package")
	}
	if strings.Contains(err.Error(), "pw-planted-3c1") || !strings.Contains(err.Error(), "user:REDACTED@example.test") {
		t.Errorf("the error shows the URL's password, or not the URL: %v", err)
	}
	if got := tools.ErrorCode(err); got != broker.CodeBadInput {
		t.Errorf("code %s, want bad_input", got)
	}
}
