//go:build vision

package worker

import "testing"

// Leptonica's messages are off once Tesseract starts: they went to the process's stderr (a
// peek of an arm rig's camera printed a hundred "Error in boxClipToRectangle: box outside
// rectangle" lines to corral's).
func TestLeptonicaIsQuiet(t *testing.T) {
	ts, err := newTess("", "eng")
	if err != nil {
		t.Fatalf("Tesseract does not start (make setup installs it): %v", err)
	}
	defer ts.close()
	if !leptonicaQuiet() {
		t.Fatal("Leptonica still prints its messages to stderr once Tesseract started")
	}
}
