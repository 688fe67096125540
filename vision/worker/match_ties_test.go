//go:build vision

package worker

import (
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"testing"

	"github.com/corral-farm/corral/vision"
	"github.com/corral-farm/corral/vision/corpus"
)

// A template that shows twice, pixel for pixel, is two matches of the same score: the first
// answered (the one tap_cv taps) is the top-most, or on one row the left-most, wherever the
// search happens to find them first. The places are spread over both orders and over offsets
// the shrunk search sees differently, so that an order left to the search shows.
func TestMatchTiesGoToTheTopMostThenLeftMost(t *testing.T) {
	e := newEngine(t)
	s := settingsScreen(t, false)
	icon := corpus.Crop(s.Image, s.Icons[4].Box)
	size := icon.Bounds().Size()
	tpl := encodePNG(t, icon)
	for _, places := range [][2]image.Point{
		{{400, 900}, {60, 200}},  // the lower one, on the right, pasted first
		{{61, 203}, {403, 901}},  // the upper one first, other offsets
		{{37, 1001}, {555, 95}},  // lower left, upper right
		{{500, 640}, {90, 640}},  // one row: the right one first
		{{93, 641}, {501, 641}},  // one row: the left one first
		{{610, 330}, {13, 330}},  // one row, far apart
		{{211, 777}, {211, 123}}, // one column
	} {
		t.Run(fmt.Sprint(places[0], places[1]), func(t *testing.T) {
			canvas := image.NewRGBA(image.Rect(0, 0, 720, 1280))
			draw.Draw(canvas, canvas.Bounds(), image.NewUniform(color.RGBA{0xf4, 0xf4, 0xf4, 0xff}), image.Point{}, draw.Src)
			for _, p := range places {
				draw.Draw(canvas, image.Rectangle{Min: p, Max: p.Add(size)}, icon, icon.Bounds().Min, draw.Src)
			}
			res, err := e.Match(testCtx(t), vision.MatchRequest{Image: encodePNG(t, canvas), Template: tpl, MinScale: 1, MaxScale: 1})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Matches) < 2 {
				t.Fatalf("found %v, want both places %v", res.Matches, places)
			}
			first, second := res.Matches[0], res.Matches[1]
			if first.Score != second.Score {
				t.Fatalf("the two copies scored %v and %v: not a tie", first.Score, second.Score)
			}
			want := places[0]
			if o := places[1]; o.Y < want.Y || (o.Y == want.Y && o.X < want.X) {
				want = o
			}
			if got := first.Box.Rect().Min; got != want {
				t.Errorf("first match at %v (score %v), want the top-most then left-most copy at %v; all: %v", got, first.Score, want, res.Matches)
			}
		})
	}
}
