package tools

import (
	"context"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/nodes/device"
)

// armLike is what an arm rig's driver can do: touch, swipe, press keys, set the clipboard and
// swipe the app in front away; it cannot name, launch or stop apps, type or read a UI tree.
type armLike struct {
	*fakeDriver
}

func (armLike) DoubleTap(context.Context, device.Point) error { return nil }
func (armLike) Swipe(context.Context, device.Point, device.Point, time.Duration, time.Duration) error {
	return nil
}
func (armLike) PressKey(context.Context, string) error     { return nil }
func (armLike) SetClipboard(context.Context, string) error { return nil }
func (armLike) QuitFrontApp(context.Context) error         { return nil }

// toolNames matches the words of a text that may be tool names.
var toolNames = regexp.MustCompile(`[a-z][a-z_]*[a-z]`)

// A result's hint names only tools the device can do: force_quit on an arm does not suggest
// app_launch.
func TestHintsNameOnlyToolsTheDeviceCan(t *testing.T) {
	d := armLike{fakeDriver: newFake()}
	typ := reflect.TypeOf(d)
	for name, args := range map[string]string{
		"force_quit": `{}`, "tap": `{"bbox":[0.1,0.1,0.2,0.2]}`, "double_tap": `{"bbox":[0.1,0.1,0.2,0.2]}`,
		"long_press": `{"bbox":[0.1,0.1,0.2,0.2]}`, "home_screen": `{}`, "go_back": `{}`, "send_to_clipboard": `{"text":"x"}`,
		"swipe": `{"direction":"up"}`, "tap_xy": `{"x":0.5,"y":0.5}`, "unlock_phone": `{}`,
	} {
		res := mustRun(t, name, d, args)
		hint, _ := res["hint"].(string)
		for _, w := range toolNames.FindAllString(hint, -1) {
			if tool, ok := Lookup(w); ok && !tool.servedBy(typ) {
				t.Errorf("%s's hint names %s, which this device cannot do: %q", name, w, hint)
			}
		}
	}
}

// QA pass Y: peek on an arm (no UI tree, no vision worker: an empty listing) said to "pick a
// target's bbox from the listing". With nothing listed, the hint says to read the place off
// the image; with a listing, it points at the listing.
func TestPeekHintFitsItsListing(t *testing.T) {
	res := mustRun(t, "peek", armLike{fakeDriver: newFake()}, `{}`)
	hint, _ := res["hint"].(string)
	if res["listing"] != nil && res["listing"] != "" {
		t.Fatalf("an arm's peek listed %q", res["listing"])
	}
	if strings.Contains(hint, "from the listing") || !strings.Contains(hint, "no element is listed") || !strings.Contains(hint, "image") {
		t.Errorf("hint of an empty listing: %q", hint)
	}
	d := newAbled()
	d.SourceFn = func(context.Context) (string, error) { return peekDump, nil }
	res = mustRun(t, "peek", d, `{}`)
	if hint, _ := res["hint"].(string); !strings.Contains(hint, "from the listing") {
		t.Errorf("hint of a listing of %v elements: %q", res["elements"], hint)
	}
}
