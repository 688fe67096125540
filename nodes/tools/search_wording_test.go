package tools

import (
	"context"
	"strings"
	"testing"

	"github.com/corral-farm/corral/nodes/sim"
)

// swipe_to_tap_texts names the texts it missed as a plural, once, and counts one swipe as one:
// it said `none of the texts "Item 3", "Item 4" (after 1 swipes) is not in the UI tree` and
// `cannot look for none of the texts`.
func TestSwipeToTapTextsSaysWhatItMissed(t *testing.T) {
	p := sim.New("sim-words")
	_, err := runOp(t, "swipe_to_tap_texts", p, `{"texts":["Nope A","Nope B"],"max_retry_times":1}`)
	want := `the texts "Nope A", "Nope B" (after 1 swipe) are not in the UI tree, and OCR could not look`
	if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "none of") {
		t.Errorf("texts missed in a tree with no vision worker: %v, want %q", err, want)
	}
	_, err = runOp(t, "swipe_to_tap_text", p, `{"text":"Nope A","max_retry_times":1}`)
	if want := `text "Nope A" (after 1 swipe) is not in the UI tree`; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("one text missed: %v, want %q", err, want)
	}

	blank := newAbled() // a browser's blank page: a tree without text
	blank.SourceFn = func(context.Context) (string, error) { return "<hierarchy/>", nil }
	_, err = runOp(t, "swipe_to_tap_texts", blank, `{"texts":["Nope A","Nope B"],"max_retry_times":1}`)
	want = `cannot look for the texts "Nope A", "Nope B" (after 0 swipes): the UI tree lists no text (a blank page, or a canvas`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("texts sought on a blank page with no vision worker: %v, want %q", err, want)
	}
}
