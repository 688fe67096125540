package web

import (
	"slices"
	"testing"
)

// The browsers' serials keep today's names under 100 (web-01) and, from 100 on, are padded to
// the count's width, so that they sort in order: web-100 after web-011, not before web-11.
func TestWebSerialsSortInOrder(t *testing.T) {
	if got := webSerial(1, 12); got != "web-01" {
		t.Errorf("the first of 12: %q, want web-01", got)
	}
	serials := make([]string, 120)
	for i := range serials {
		serials[i] = webSerial(i+1, len(serials))
	}
	if serials[0] != "web-001" || serials[119] != "web-120" {
		t.Errorf("the first and last of 120: %q, %q; want web-001, web-120", serials[0], serials[119])
	}
	if !slices.IsSorted(serials) {
		t.Errorf("the serials of 120 browsers do not sort in order: %v", serials[98:102])
	}
}
