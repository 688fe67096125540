package uitree_test

import (
	"testing"

	"github.com/corral-farm/corral/nodes/uitree"
)

// iOS's XCUITest types and web tags get the kinds Android's classes get.
func TestKindOfIOSAndWebElements(t *testing.T) {
	for _, c := range []struct {
		e    uitree.Element
		want string
	}{
		{uitree.Element{Class: "XCUIElementTypeTextField", Clickable: true}, "input"},
		{uitree.Element{Class: "XCUIElementTypeSecureTextField", Clickable: true}, "input"},
		{uitree.Element{Class: "XCUIElementTypeSearchField", Clickable: true}, "input"},
		{uitree.Element{Class: "XCUIElementTypeTextView", Clickable: true}, "input"},
		{uitree.Element{Class: "XCUIElementTypeStaticText", Text: "Notes"}, "text"},
		{uitree.Element{Class: "XCUIElementTypeCell", Clickable: true}, "button"},
		{uitree.Element{Class: "XCUIElementTypeSwitch", Clickable: true}, "switch"},
		{uitree.Element{Class: "XCUIElementTypeOther"}, "view"},
		{uitree.Element{Class: "XCUIElementTypeOther", Clickable: true}, "button"},
		{uitree.Element{Class: "input", Clickable: true}, "input"},
		{uitree.Element{Class: "textarea", Clickable: true}, "input"},
		{uitree.Element{Class: "a", Clickable: true}, "button"},
		{uitree.Element{Class: "p", Text: "Hi"}, "text"},
		{uitree.Element{Class: "div", Text: "Hi"}, "text"},
		{uitree.Element{Class: "div", ContentDesc: "Menu"}, "view"},
		{uitree.Element{Class: "div", Text: "Pay", Clickable: true}, "button"},
		{uitree.Element{Class: "div dialog"}, "view"},
		{uitree.Element{Class: "img"}, "image"},
	} {
		if got := c.e.Kind(); got != c.want {
			t.Errorf("Kind(%+v) = %s, want %s", c.e, got, c.want)
		}
	}
}
