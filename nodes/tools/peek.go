package tools

import (
	"context"
	"fmt"
	"image"
	"image/color"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/image/draw"
	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"

	"github.com/corral-farm/corral/nodes/device"
	"github.com/corral-farm/corral/nodes/uitree"
	"github.com/corral-farm/corral/vision"
)

// Peek limits: a listing stays small enough for an agent's context.
const (
	MaxPeekElements = 300
	maxLabelRunes   = 80
)

// PeekResult is peek's structured result; the screenshot itself is image content.
type PeekResult struct {
	Message  string `json:"message" jsonschema:"What the listing holds and where it came from"`
	Source   string `json:"source,omitempty" jsonschema:"Where the elements came from: ui_tree or vision (none: no listing)"`
	Listing  string `json:"listing" jsonschema_description:"One line per element, as the description says; conf is 1.00 from the UI tree, else the vision worker's. Pass the bbox (3 decimals) to tap, long_press or swipe"`
	Elements int    `json:"elements" jsonschema:"Number of elements listed"`
	Width    int    `json:"width" jsonschema:"Screenshot width in pixels"`
	Height   int    `json:"height" jsonschema:"Screenshot height in pixels"`
	Hint     string `json:"hint"`
}

// PeekElement is one line of peek's listing.
type PeekElement struct {
	ID    string
	Kind  string
	Label string
	BBox  [4]float64 // relative 0-1
	Conf  float64
	px    image.Rectangle
}

// String formats the element as PhysiClaw lists it: id [kind] "label" [l,t,r,b] conf.
func (e PeekElement) String() string {
	return fmt.Sprintf("%s [%s] %s [%.3f,%.3f,%.3f,%.3f] %.2f", e.ID, e.Kind, strconv.Quote(e.Label),
		e.BBox[0], e.BBox[1], e.BBox[2], e.BBox[3], e.Conf)
}

// PeekElements turns a UI tree into peek's elements: the ones with a label or that are
// clickable, visible on a screen of size, in document order, numbered e1, e2, ... The second
// result counts the elements left out past MaxPeekElements.
func PeekElements(els []uitree.Element, size image.Point) (out []PeekElement, more int) {
	screen := image.Rectangle{Max: size}
	for _, e := range els {
		label := e.Label()
		if label == "" && !e.Clickable {
			continue
		}
		r := e.Bounds.Intersect(screen)
		if r.Empty() {
			continue
		}
		if len(out) == MaxPeekElements {
			more++
			continue
		}
		w, h := float64(size.X), float64(size.Y)
		out = append(out, PeekElement{
			ID: "e" + strconv.Itoa(len(out)+1), Kind: e.Kind(), Label: clipRunes(label, maxLabelRunes), Conf: 1,
			BBox: [4]float64{float64(r.Min.X) / w, float64(r.Min.Y) / h, float64(r.Max.X) / w, float64(r.Max.Y) / h},
			px:   r,
		})
	}
	return out, more
}

// peek shows the screen as PhysiClaw does: a screenshot with the UI tree's elements drawn on
// it, and their listing; where the device has no UI tree (or it lists nothing) a vision worker
// lists the elements it sees, and without one the screenshot comes alone.
func peek() Tool {
	return Define[ImageArgs, PeekResult](Tool{
		Name: "peek",
		Description: "Look at the screen without changing it (PhysiClaw): a JPEG screenshot with each element's box and id drawn on it, " +
			`and a listing, one element per line: id [kind] "label" [left,top,right,bottom] conf, the bbox relative 0-1. ` +
			"Peek before acting to pick a bbox, and after to verify.",
		Hints:      ReadOnly,
		Timeout:    30 * time.Second,
		MaxTimeout: 2 * time.Minute,
		Profiles:   []string{PhysiClaw},
		Short:      noParams,
		Uses:       []Ability{Need[device.SourceDumper]("list the screen's elements")},
	}, func(ctx context.Context, t *Task, a ImageArgs) (Output, error) {
		img, err := t.Driver.Screenshot(ctx)
		if err != nil {
			return Output{}, err
		}
		size := img.Bounds().Size()
		// Scaled first, then marked: drawing on the smaller image is the cheaper. Width and
		// height are the image's, as screenshot's are; the bboxes, relative 0-1, hold for it
		// and for the screen alike.
		shown, err := FitWidth(ctx, img, readableWidth(a.MaxWidth))
		if err != nil {
			return Output{}, err
		}
		res := PeekResult{Width: shown.Bounds().Dx(), Height: shown.Bounds().Dy()}
		var els []PeekElement
		more := 0
		sd, ok := t.Driver.(device.SourceDumper)
		if !ok {
			res.Message = "this device cannot dump its UI tree"
		} else {
			src, err := sd.Source(ctx)
			if err == nil {
				var tree []uitree.Element
				if tree, err = uitree.Parse(src); err == nil {
					els, more = PeekElements(tree, size)
				}
			}
			switch {
			case ctx.Err() != nil:
				return Output{}, ctx.Err()
			case err != nil:
				res.Message = fmt.Sprintf("the UI tree could not be read (%v)", err)
			case len(els) == 0:
				res.Message = "the UI tree lists no element (a blank page, or a canvas, game or camera view)"
			default:
				res.Source = SourceUITree
				res.Message = fmt.Sprintf("%d elements from the UI tree; the image is %s with each element's box and id drawn on it", len(els), screenImageName(t.Driver))
			}
		}
		if res.Source == "" { // no tree to list: the vision worker looks at the screenshot
			var verr error
			els, more, verr = visionElements(ctx, t, img)
			switch {
			case ctx.Err() != nil:
				return Output{}, ctx.Err()
			case noWorker(verr):
				res.Message += ", so there is no element listing: read the image. For one, " + lowerFirst(verr.Error())
			case verr != nil:
				res.Message += fmt.Sprintf(", and the vision worker could not list the elements (%v): read the image", verr)
			default:
				res.Source = SourceVision
				res.Message += fmt.Sprintf("; %d elements from the vision worker (OCR text and shapes, with its confidence); "+
					"the image is %s with each element's box and id drawn on it", len(els), screenImageName(t.Driver))
			}
		}
		lines := make([]string, 0, len(els)+1)
		for _, e := range els {
			lines = append(lines, e.String())
		}
		if more > 0 {
			lines = append(lines, fmt.Sprintf("… %d more elements not listed", more))
			res.Message += fmt.Sprintf("; %d more not listed (at most %d)", more, MaxPeekElements)
		}
		res.Message = withNote(res.Message, widerNote(a.MaxWidth, res.Width))
		res.Listing, res.Elements = strings.Join(lines, "\n"), len(els)
		res.Hint = peekHint(len(els))
		return Output{Data: res, Image: markElements(shown, els, size)}, nil
	})
}

// SourceVision says that peek's elements came from a vision worker.
const SourceVision = "vision"

// visionElements asks the vision worker for the elements of a screenshot, as peek lists them:
// the worker's ids, kinds, texts and confidences, bboxes relative to img.
func visionElements(ctx context.Context, t *Task, img image.Image) (out []PeekElement, more int, err error) {
	res, vi, err := askVision(ctx, t, img, 0, func(vi visionImage) (vision.ElementsResult, error) {
		return t.vision().Elements(ctx, vision.ElementsRequest{V: vision.WireVersion, Image: vi.data})
	})
	if err != nil {
		return nil, 0, err
	}
	size := img.Bounds().Size()
	screen := image.Rectangle{Max: size}
	for _, e := range res.Elements {
		r := vi.toScreen(e.Box).Intersect(screen)
		if r.Empty() {
			continue
		}
		if len(out) == MaxPeekElements {
			more++
			continue
		}
		id := e.ID
		if id == "" || len(id) > 12 {
			id = "e" + strconv.Itoa(len(out)+1)
		}
		w, h := float64(size.X), float64(size.Y)
		out = append(out, PeekElement{ID: id, Kind: e.Kind, Label: clipRunes(e.Text, maxLabelRunes), Conf: e.Confidence,
			BBox: [4]float64{float64(r.Min.X) / w, float64(r.Min.Y) / h, float64(r.Max.X) / w, float64(r.Max.Y) / h}, px: r})
	}
	return out, more, nil
}

// lowerFirst lowers the first letter of s.
func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}

// markColor is the colour of the boxes and id tags peek draws.
var markColor = color.RGBA{R: 0xff, G: 0x1a, B: 0x8c, A: 0xff}

// markElements returns a copy of img, a screenshot of screen's size (maybe scaled), with each
// element's box outlined and its id in a tag at the box's top-left corner.
func markElements(img image.Image, els []PeekElement, screen image.Point) image.Image {
	if len(els) == 0 {
		return img
	}
	b := img.Bounds()
	dst := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	draw.Draw(dst, dst.Bounds(), img, b.Min, draw.Src)
	line := max(2, b.Dx()/400)
	scale := max(1, b.Dx()/540)
	pen := image.NewUniform(markColor)
	for _, e := range els {
		r := image.Rect(e.px.Min.X*b.Dx()/screen.X, e.px.Min.Y*b.Dy()/screen.Y, e.px.Max.X*b.Dx()/screen.X, e.px.Max.Y*b.Dy()/screen.Y)
		for _, edge := range []image.Rectangle{
			{r.Min, image.Pt(r.Max.X, r.Min.Y+line)}, {image.Pt(r.Min.X, r.Max.Y-line), r.Max},
			{r.Min, image.Pt(r.Min.X+line, r.Max.Y)}, {image.Pt(r.Max.X-line, r.Min.Y), r.Max},
		} {
			draw.Draw(dst, edge.Intersect(r), pen, image.Point{}, draw.Src)
		}
		tag := idTag(e.ID)
		at := image.Rectangle{Min: r.Min, Max: r.Min.Add(tag.Bounds().Size().Mul(scale))}
		draw.NearestNeighbor.Scale(dst, at, tag, tag.Bounds(), draw.Src, nil)
	}
	return dst
}

// idTag renders id in white on markColor with the 7x13 basic font.
func idTag(id string) *image.RGBA {
	face := basicfont.Face7x13
	w := font.MeasureString(face, id).Ceil() + 4
	tag := image.NewRGBA(image.Rect(0, 0, w, 15))
	draw.Draw(tag, tag.Bounds(), image.NewUniform(markColor), image.Point{}, draw.Src)
	d := font.Drawer{Dst: tag, Src: image.White, Face: face, Dot: fixed.P(2, 12)}
	d.DrawString(id)
	return tag
}

// clipRunes shortens s to at most n runes, marking the cut with an ellipsis.
func clipRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i := 0
	for j := range s {
		if i == n-1 {
			return s[:j] + "…"
		}
		i++
	}
	return s
}
