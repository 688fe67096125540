package tools

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/nodes/device"
	"github.com/stretchr/testify/assert"
)

func TestDefaultOpsAreWellFormed(t *testing.T) {
	for name, op := range DefaultOps() {
		if op.Name != name || op.Run == nil {
			t.Errorf("op %q: name %q, run set %v", name, op.Name, op.Run != nil)
		}
		if op.Timeout <= 0 || op.MaxTimeout < op.Timeout {
			t.Errorf("op %s: timeout %v, max %v", name, op.Timeout, op.MaxTimeout)
		}
	}
}

// Arguments that are not a JSON object with known fields are refused by every op before the
// driver is touched.
func TestEveryOpRefusesGarbage(t *testing.T) {
	for name := range DefaultOps() {
		for _, args := range []string{`{"bogus":1}`, `[]`, `"x"`, `{`, `{} {}`, `null x`} {
			d := newAbled()
			_, err := runOp(t, name, d, args)
			wantCode(t, err, broker.CodeBadInput)
			if calls := d.Calls(); len(calls) != 0 {
				t.Errorf("%s %s reached the driver: %v", name, args, calls)
			}
		}
	}
}

// A platform is offered for a tool only when its driver type has the abilities the tool needs,
// and a driver without them is told so before Run.
func TestNeedsDecidePlatformsAndRefuse(t *testing.T) {
	plain := device.Platform{Name: "plain", Driver: reflect.TypeFor[*fakeDriver]()}
	abled := device.Platform{Name: "abled", Driver: reflect.TypeFor[*fakeAbled]()}
	ps := []device.Platform{plain, abled}
	assert.Equal(t, []string{"abled"}, ToolPlatforms(ps, "get_foreground_app"))
	assert.Equal(t, []string{"abled", "plain"}, ToolPlatforms(ps, "tap_xy"))

	_, err := DefaultOps()["get_foreground_app"].Run(context.Background(), &Task{Driver: newFake(), Args: json.RawMessage(`{}`)})
	assert.Equal(t, "unsupported", ErrorCode(err))
	assert.ErrorContains(t, err, "cannot tell which app is in front")
}
