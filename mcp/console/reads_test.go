package console

import (
	"strings"
	"testing"
)

// Why a view is hidden: the gateway's --tools when it serves none of the view's tools, else
// the token's tools; a view whose tools are both allowed and served shows.
func TestHiddenSaysWhetherTheGatewayOrTheTokenHidesIt(t *testing.T) {
	only := func(tools ...string) func(string) bool {
		return func(tool string) bool { return strings.Contains(" "+strings.Join(tools, " ")+" ", " "+tool+" ") }
	}
	for _, c := range []struct {
		name     string
		v        Viewer
		w        view
		may      bool
		hiddenBy string
	}{
		{"served and allowed", Viewer{MayCall: only(toolScreen), served: only(toolScreen)}, viewScreen, true, ""},
		{"not served", Viewer{served: only(toolList)}, viewScreen, false, "This gateway does not serve screenshot (its --tools leave it out)"},
		{"not served, whatever the token", Viewer{MayCall: only(toolScreen), served: only(toolList)}, viewScreen, false, "This gateway does not serve screenshot"},
		{"served, not allowed", Viewer{MayCall: only(toolList), served: only(toolScreen)}, viewScreen, false, "Your token may not call screenshot"},
		{"neither of two served", Viewer{served: only(toolScreen)}, viewStatus, false,
			"This gateway does not serve get_device_status or list_available_devices (its --tools leave them out)"},
		{"one of two served and allowed", Viewer{served: only(toolList)}, viewStatus, true, ""},
	} {
		if got := c.v.may(c.w); got != c.may {
			t.Errorf("%s: may %v, want %v", c.name, got, c.may)
		}
		if c.hiddenBy != "" && !strings.HasPrefix(c.v.hidden(c.w), c.hiddenBy) {
			t.Errorf("%s: %q, want it to begin %q", c.name, c.v.hidden(c.w), c.hiddenBy)
		}
	}
}
