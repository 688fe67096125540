//go:build vision

package worker

import (
	"image"
	"image/color"
	"image/draw"
	"testing"

	"github.com/corral-farm/corral/vision"
	"github.com/corral-farm/corral/vision/corpus"
)

// drawIcon draws, in c on what is there, a ring with a bar across it filling r (square): an
// icon of one colour, as a flat settings or toolbar icon is.
func drawIcon(dst *image.RGBA, r image.Rectangle, c color.RGBA) {
	side := float64(r.Dx())
	cx, cy := float64(r.Min.X)+side/2, float64(r.Min.Y)+side/2
	outer, inner := side*0.42, side*0.3
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			dx, dy := float64(x)+0.5-cx, float64(y)+0.5-cy
			d2 := dx*dx + dy*dy
			ring := d2 <= outer*outer && d2 >= inner*inner
			bar := dy > -side*0.06 && dy < side*0.06 && dx > -outer && dx < outer
			if ring || bar {
				dst.SetRGBA(x, y, c)
			}
		}
	}
}

// Two icons of one shape in other colours on a flat background are, in gray, one picture in
// two contrasts: normalised correlation scores both 1, and the top-most (then left-most) came
// first, so tap_cv with a crop of the other one tapped the wrong icon. Colour breaks the tie.
func TestMatchTellsSameShapeIconsApartByColour(t *testing.T) {
	e := newEngine(t)
	red, blue := color.RGBA{0xd0, 0x30, 0x30, 0xff}, color.RGBA{0x20, 0x50, 0xd0, 0xff}
	// Same gray level (0.299 R + 0.587 G + 0.114 B ≈ 101): identical in gray, pixel for pixel.
	sameGrayRed, sameGrayGreen := color.RGBA{0xf0, 0x28, 0x30, 0xff}, color.RGBA{0x10, 0x9a, 0x10, 0xff}
	green, orange := color.RGBA{0x20, 0xa0, 0x40, 0xff}, color.RGBA{0xf0, 0x90, 0x10, 0xff}
	for _, tc := range []struct {
		name   string
		places [2]image.Point // icon 0 at places[0] in colours[0], icon 1 at places[1] in colours[1]
		colors [2]color.RGBA
		want   int     // the icon cut as the template
		scale  float64 // the template drawn this much larger than the screen's icon (0: a crop)
	}{
		{"the lower one", [2]image.Point{{300, 200}, {300, 700}}, [2]color.RGBA{red, blue}, 1, 0},
		{"the upper one", [2]image.Point{{300, 200}, {300, 700}}, [2]color.RGBA{red, blue}, 0, 0},
		{"the lower one, same gray", [2]image.Point{{120, 300}, {480, 900}}, [2]color.RGBA{sameGrayRed, sameGrayGreen}, 1, 0},
		{"the right one of a row", [2]image.Point{{80, 500}, {500, 500}}, [2]color.RGBA{green, orange}, 1, 0},
		{"the left one of a row, listed first", [2]image.Point{{500, 500}, {80, 500}}, [2]color.RGBA{orange, green}, 1, 0},
		{"the lower one, template 1.25× larger", [2]image.Point{{300, 200}, {300, 700}}, [2]color.RGBA{red, blue}, 1, 1.25},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const side = 96
			canvas := image.NewRGBA(image.Rect(0, 0, 720, 1280))
			draw.Draw(canvas, canvas.Bounds(), image.NewUniform(color.RGBA{0xf4, 0xf4, 0xf4, 0xff}), image.Point{}, draw.Src)
			var boxes [2]image.Rectangle
			for i, p := range tc.places {
				boxes[i] = image.Rectangle{Min: p, Max: p.Add(image.Pt(side, side))}
				drawIcon(canvas, boxes[i], tc.colors[i])
			}
			want := boxes[tc.want]
			var tpl image.Image = corpus.Crop(canvas, want)
			if tc.scale != 0 {
				big := int(side * tc.scale)
				t2 := image.NewRGBA(image.Rect(0, 0, big, big))
				draw.Draw(t2, t2.Bounds(), image.NewUniform(color.RGBA{0xf4, 0xf4, 0xf4, 0xff}), image.Point{}, draw.Src)
				drawIcon(t2, t2.Bounds(), tc.colors[tc.want])
				tpl = t2
			}
			res, err := e.Match(testCtx(t), vision.MatchRequest{Image: encodePNG(t, canvas), Template: encodePNG(t, tpl)})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Matches) < 2 {
				t.Fatalf("found %v, want both icons %v", res.Matches, boxes)
			}
			got := res.Matches[0].Box.Rect()
			c, wc := got.Min.Add(got.Max).Div(2), want.Min.Add(want.Max).Div(2)
			if d := c.Sub(wc); d.X < -3 || d.X > 3 || d.Y < -3 || d.Y > 3 {
				t.Errorf("first match %v (centre %v), want the %v icon at %v (centre %v); all: %v", got, c, tc.colors[tc.want], want, wc, res.Matches)
			}
		})
	}
}
