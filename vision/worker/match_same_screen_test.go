//go:build vision

package worker

import (
	"context"
	"fmt"
	"image"
	"regexp"
	"strconv"
	"testing"

	"github.com/corral-farm/corral/nodes/sim"
	"github.com/corral-farm/corral/vision"
	"github.com/corral-farm/corral/vision/corpus"
)

// An icon cut from a screen is found first where it was cut, score 1, even when other icons
// look alike in gray: the simulated launcher's Camera, Clock and Calculator are each a rounded
// square with a "C" (Music, Messages and Maps an "M") in another colour, and normalised
// correlation of gray pixels scores such a look-alike 0.98 to 1. tap_cv taps the first match, so
// a look-alike first taps the wrong app.
func TestMatchFindsACropOfTheSameScreenWhereItWasCut(t *testing.T) {
	e := newEngine(t)
	for _, size := range []image.Point{{1080, 2400}, {750, 1334}} {
		phone := sim.New("match", sim.WithSize(size.X, size.Y))
		shot, err := phone.Screenshot(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		src, err := phone.Source(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		screen := encodePNG(t, shot)
		cells := launcherCells(t, src)
		f := float64(size.X) / 1080
		side, top := int(170*f), int(30*f)
		for name, cell := range cells {
			x := cell.Min.X + (cell.Dx()-side)/2
			cut := image.Rect(x, cell.Min.Y+top, x+side, cell.Min.Y+top+side)
			t.Run(fmt.Sprintf("%dx%d/%s", size.X, size.Y, name), func(t *testing.T) {
				tpl := encodePNG(t, corpus.Crop(shot, cut))
				// The default threshold, and 1: only the crop's own place scores that.
				for _, threshold := range []float64{0, 1} {
					res, err := e.Match(testCtx(t), vision.MatchRequest{Image: screen, Template: tpl, Threshold: threshold})
					if err != nil {
						t.Fatal(err)
					}
					if len(res.Matches) == 0 {
						t.Fatalf("threshold %v: no match for a crop of %v", threshold, cut)
					}
					if got := res.Matches[0]; got.Box.Rect() != cut || got.Score != 1 {
						t.Errorf("threshold %v: first match %v score %v scale %v, want the crop's own place %v at score 1; all: %v", threshold, got.Box.Rect(), got.Score, got.Scale, cut, res.Matches)
					}
				}
			})
		}
	}
}

// launcherCells reads the home screen's app cells (name to bounds) from a uiautomator dump.
func launcherCells(t *testing.T, src string) map[string]image.Rectangle {
	t.Helper()
	re := regexp.MustCompile(`resource-id="com\.corral\.launcher:id/app_(\w+)"[^>]*bounds="\[(\d+),(\d+)\]\[(\d+),(\d+)\]"`)
	cells := map[string]image.Rectangle{}
	for _, m := range re.FindAllStringSubmatch(src, -1) {
		n := make([]int, 4)
		for i := range n {
			n[i], _ = strconv.Atoi(m[2+i])
		}
		cells[m[1]] = image.Rect(n[0], n[1], n[2], n[3])
	}
	if len(cells) < 6 {
		t.Fatalf("found %d app cells on the home screen, want the launcher's grid: %.300s", len(cells), src)
	}
	return cells
}
