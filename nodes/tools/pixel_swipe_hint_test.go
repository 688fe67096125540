package tools

import (
	"strings"
	"testing"

	"github.com/corral-farm/corral/broker"
)

// A swipe or drag given pixels is refused with the way to give them: no tool swipes by pixel,
// so the refusal says how to turn them into 0-1 (QA Q13.4: it named no way forward, where
// tap_xy points to tap_abs_xy).
func TestPixelSwipeRefusalSaysHowToConvert(t *testing.T) {
	for _, c := range []struct{ tool, args, want string }{
		{"swipe_coordinate", `{"from_x":100,"from_y":0.5,"to_x":0.5,"to_y":0.5}`, "from_x must be between 0 and 1"},
		{"drag", `{"from_x":0.5,"from_y":0.5,"to_x":0.5,"to_y":900}`, "to_y must be between 0 and 1"},
		{"swipe", `{"from_x":0.5,"from_y":0.5,"to_x":700,"to_y":0.5}`, "to_x must be between 0 and 1"},
	} {
		_, err := runOp(t, c.tool, newFake(), c.args)
		wantCode(t, err, broker.CodeBadInput)
		axis := "width"
		if strings.Contains(c.want, "_y") {
			axis = "height"
		}
		if msg := err.Error(); !strings.Contains(msg, c.want) || !strings.Contains(msg, "for pixels, divide by the screen "+axis+" (get_screen_size)") {
			t.Errorf("%s %s: %v", c.tool, c.args, err)
		}
	}
}
