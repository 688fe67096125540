//go:build vision

package worker

import (
	"image"
	"testing"

	"github.com/corral-farm/corral/vision/corpus"
)

// The test screens come from package corpus, which draws them with their ground truth.

// drawScreen draws sp.
func drawScreen(t testing.TB, sp corpus.Spec) *corpus.Screen {
	t.Helper()
	s, err := corpus.Draw(sp)
	if err != nil {
		t.Fatalf("draw %s: %v (make setup installs the fonts)", sp.Name(), err)
	}
	return s
}

// settingsScreen is a 1080×2400 settings screen: a title and a button, rows of an icon, a label
// and often a value, a navigation bar of three icons.
func settingsScreen(t testing.TB, dark bool) *corpus.Screen {
	t.Helper()
	return drawScreen(t, corpus.Spec{Layout: corpus.Settings, Dark: dark, Seed: 1})
}

// row is the n-th list row of a settings screen (from 0): its element (label and box).
func row(t testing.TB, s *corpus.Screen, n int) corpus.Element {
	t.Helper()
	if n+1 >= len(s.Elements) {
		t.Fatalf("%s has %d elements", s.Name, len(s.Elements))
	}
	return s.Elements[n+1] // the first is the Search button
}

func encodePNG(t testing.TB, img image.Image) []byte {
	t.Helper()
	b, err := corpus.EncodePNG(img)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
