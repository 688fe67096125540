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

// get_source of an app that is not installed is refused as app_launch of it is (bad_input,
// naming list_packages), on a simulated phone: it succeeded with "launch com.nope first to
// see that app", which app_launch then refused. An installed app's source is read as before.
func TestGetSourceRefusesAnAppNotInstalled(t *testing.T) {
	p := sim.New("sim-local-01")
	run := func(tool, args string) (tools.Output, error) {
		return tools.DefaultOps()[tool].Run(context.Background(), &tools.Task{Driver: p, Args: json.RawMessage(args)})
	}
	_, launchErr := run("app_launch", `{"packageName":"com.nope"}`)
	_, err := run("get_source", `{"packageName":"com.nope"}`)
	if got, want := tools.ErrorCode(err), tools.ErrorCode(launchErr); got != broker.CodeBadInput || got != want {
		t.Fatalf("get_source of an app not installed: code %s (%v), want bad_input as app_launch's (%v)", got, err, launchErr)
	}
	for _, want := range []string{"com.nope is not installed", "list_packages"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the refusal %q does not say %q", err, want)
		}
	}
	out, err := run("get_source", `{"packageName":"com.corral.notes"}`)
	if err != nil {
		t.Fatalf("get_source of an installed app: %v", err)
	}
	if r, _ := out.Data.(tools.SourceResult); r.Source == "" || r.PackageName != "com.corral.notes" {
		t.Errorf("get_source of an installed app: %+v", r)
	}
}
