package test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/corral-farm/corral/internal/farmtest"
)

// A caller's mistake on a browser device is bad_input, a selector that matches nothing is
// not_found: not driver_error, which the tool-error alerts blame on the driver.
func TestWebCallersMistakesHaveTheirCodes(t *testing.T) {
	site, saw := webSite(t)
	f := webFarm(t, "web-codes")
	c := f.Client("agent")
	farmtest.MustCall(t, c, "app_launch", args("serial", "web-codes", "packageName", site+"/"))
	for _, tc := range []struct {
		tool string
		args []any
		code string
		says string
	}{
		{"tap_by_selector", []any{"selector", "#missing"}, "not_found", "no element matches"},
		{"hover_by_selector", []any{"selector", "#missing"}, "not_found", "no element matches"},
		{"secondary_click_by_selector", []any{"selector", "#missing"}, "not_found", "no element matches"},
		{"tap_by_selector", []any{"selector", "a[["}, "bad_input", "bad selector"},
		{"hover_by_selector", []any{"selector", "//div[@"}, "bad_input", "bad selector"},
		{"secondary_click_by_selector", []any{"selector", "a[["}, "bad_input", "bad selector"},
		{"app_launch", []any{"packageName", "example.org"}, "bad_input", `https://example.org`},
		{"web_close_tab", []any{"tabIndex", 5}, "bad_input", "no such tab"},
		{"app_terminate", []any{"packageName", "https://not-open.example/"}, "bad_input", "list_packages"},
		{"press_button", []any{"button", "VOLUME_UP"}, "bad_input", "no such key"},
	} {
		res := farmtest.Call(t, c, tc.tool, args(append([]any{"serial", "web-codes"}, tc.args...)...))
		text := farmtest.Text(res)
		if assert.True(t, res.IsError, "%s %v: %s", tc.tool, tc.args, text) {
			assert.Contains(t, text, "("+tc.code+")", "%s %v", tc.tool, tc.args)
			assert.Contains(t, text, tc.says, "%s %v", tc.tool, tc.args)
		}
	}
	assert.Zero(t, saw("click", "")+saw("contextmenu", ""), "the page saw a click")
}
