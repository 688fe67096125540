package web

import (
	"strings"
	"testing"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/nodes/tools"
)

// The coordinate tools on a browser refuse a coordinate far off the viewport in the numbers
// the caller sent: secondary_click's x of 1e308 was converted to an int first and refused as
// (-9223372036854775808,1). Nothing reaches the page until a coordinate on it does.
func TestCoordinateToolsRefuseHugeNumbersAsSent(t *testing.T) {
	d, r, ctx := onTestPage(t, "phone")
	run := func(name, args string) error {
		_, err := tools.DefaultOps()[name].Run(ctx, &tools.Task{Driver: d, Args: []byte(args)})
		return err
	}
	for _, c := range []struct{ tool, args, want string }{
		{"secondary_click", `{"x":1e308,"y":1}`, "pixel (1e+308, 1) is outside the 1170x2532 screen"},
		{"secondary_click", `{"x":1e30,"y":1}`, "pixel (1e+30, 1) is outside the 1170x2532 screen"},
		{"secondary_click", `{"x":3,"y":-1e308}`, "y must be at least 0, got -1e+308"},
		{"secondary_click", `{"x":1170,"y":1}`, "x must be 0 to 1169, y 0 to 2531"},
		{"tap_abs_xy", `{"x":1e308,"y":1}`, "x must be between 0 and 100000 (a pixel coordinate), got 1e+308"},
		{"tap_xy", `{"x":1e308,"y":0.5}`, "x must be between 0 and 1 (relative to the screen), got 1e+308"},
		{"double_tap_xy", `{"x":0.5,"y":1e30}`, "y must be between 0 and 1 (relative to the screen), got 1e+30"},
		{"drag", `{"from_x":0.1,"from_y":0.1,"to_x":1e308,"to_y":0.5}`, "to_x must be between 0 and 1"},
		{"swipe_coordinate", `{"from_x":0.1,"from_y":0.1,"to_x":0.5,"to_y":1e308}`, "to_y must be between 0 and 1"},
	} {
		err := run(c.tool, c.args)
		if tools.ErrorCode(err) != broker.CodeBadInput || !strings.Contains(err.Error(), c.want) ||
			strings.Contains(err.Error(), "9223372036854775") {
			t.Errorf("%s %s: %v, want bad_input %q", c.tool, c.args, err, c.want)
		}
	}
	// #menu's centre in device pixels (DPR 3): the right click lands, and it is the page's only event.
	if err := run("secondary_click", `{"x":360,"y":630}`); err != nil {
		t.Fatal(err)
	}
	r.await(t, "the right click on Menu", on("contextmenu", "menu"))
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, e := range r.events {
		if e.ID != "menu" {
			t.Errorf("the page saw %+v", e)
		}
	}
}
