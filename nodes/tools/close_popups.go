package tools

import (
	"context"
	"fmt"
	"image"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/corral-farm/corral/nodes/device"
	"github.com/corral-farm/corral/nodes/uitree"
)

// MaxPopupTaps bounds the buttons close_popups taps in one call.
const MaxPopupTaps = 5

// How long close_popups waits for a tapped popup to go (dialogs animate away), and how often
// it looks meanwhile.
const (
	popupSettle = time.Second
	popupPoll   = 150 * time.Millisecond
)

// Labels of the buttons close_popups taps, matched whole and case-insensitively against an
// element's text or content-desc, in order of preference. dismissLabels close a popup without
// accepting anything and count anywhere on screen; dialogLabels acknowledge or cancel, and count
// only inside a dialog, where they cannot be a page's own buttons.
var (
	dismissLabels = []string{"close", "dismiss", "not now", "no thanks", "no, thanks", "skip", "later", "maybe later",
		"remind me later", "not interested", "reject all", "decline", "decline all", "only necessary", "necessary only", "×", "✕", "✖", "关闭", "跳过", "以后再说", "稍后再说", "下次再说", "暂不", "暂不需要", "不了"}
	dialogLabels = []string{"x", "cancel", "got it", "ok", "okay", "取消", "我知道了", "知道了", "好的", "确定"}
)

// dialogIDs are parts of the resource ids and classes of popup containers.
var dialogIDs = []string{"dialog", "popup", "parentpanel", "buttonpanel", "alerttitle", "bottom_sheet", "bottomsheet", "modal",
	"cookie", "consent"} // a web page's cookie banner

// ClosePopupsResult is close_popups's structured result (HttpRunner seed).
// The message names the buttons tapped; tools/list's budget leaves no room for a list of them.
type ClosePopupsResult struct {
	Message      string `json:"message"`
	PopupsClosed int    `json:"popupsClosed"`
	Hint         string `json:"hint"`
}

// popupButton is a dismiss button found in a UI tree.
type popupButton struct {
	label  string
	bounds image.Rectangle
	dialog int // index of its popup container, -1 outside any: a later one is drawn on top
	rank   int // position in the label lists: lower is preferred
	index  int // document order: later is drawn on top
	copies int // elements with its label and bounds (stacked twins); fewer after a tap: it closed
}

// closePopupsTool taps the dismiss buttons of the popups on screen, found in the UI tree, one
// at a time, and checks that each went.
func closePopupsTool() Tool {
	return Define[ActionArgs, ClosePopupsResult](Tool{
		Name:        "close_popups",
		Description: "Tap the dismiss buttons (Close, Not now, Skip, 关闭...) of up to 5 popups.",
		Timeout:     30 * time.Second,
		MaxTimeout:  2 * time.Minute,
		Profiles:    []string{HttpRunner},
		Short:       noParams,
		Needs: []Ability{Need[device.SourceDumper]("read its UI tree to find popups").Else(
			"peek shows the popup with its buttons' bboxes: tap the one that closes it")},
	}, func(ctx context.Context, t *Task, _ ActionArgs) (Output, error) {
		sd := t.Driver.(device.SourceDumper)
		size, err := t.Driver.ScreenSize(ctx)
		if err != nil {
			return Output{}, err
		}
		screen := image.Rect(0, 0, size.Width, size.Height)
		els, err := readTree(ctx, sd)
		if err != nil {
			return Output{}, err
		}
		var closed, stuck []string
		tried := map[string]bool{}
		for taps := 0; taps < MaxPopupTaps; taps++ {
			b, ok := pickDismiss(els, screen, tried)
			if !ok {
				break
			}
			c := b.bounds.Intersect(screen)
			t.aimAt(c)
			if err := t.tapAt(ctx, device.Point{X: (c.Min.X + c.Max.X) / 2, Y: (c.Min.Y + c.Max.Y) / 2}, 0); err != nil {
				return Output{}, fmt.Errorf("tapping %s: %w", strconv.Quote(b.label), err)
			}
			var gone bool
			if els, gone, err = awaitGone(ctx, sd, b); err != nil {
				return Output{}, err
			}
			if gone {
				closed = append(closed, b.label)
			} else {
				tried[b.key()] = true // it stayed: do not tap it again
				stuck = append(stuck, b.label)
			}
		}
		return Output{Data: ClosePopupsResult{Message: popupsMessage(closed, stuck) + dialogNote(t), PopupsClosed: len(closed),
			Hint: hintPopups}}, nil
	})
}

func popupsMessage(closed, stuck []string) string {
	quote := func(ls []string) string {
		q := make([]string, len(ls))
		for i, l := range ls {
			q[i] = strconv.Quote(l)
		}
		return strings.Join(q, ", ")
	}
	var msg string
	switch n := len(closed); {
	case n == 0 && len(stuck) == 0:
		return "no popup found: nothing on screen reads Close, Not now, Skip, 关闭 or the like"
	case n == 0:
		msg = "closed no popup"
	case n == 1:
		msg = "closed 1 popup (tapped " + quote(closed) + ")"
	default:
		msg = fmt.Sprintf("closed %d popups (tapped %s)", n, quote(closed))
	}
	if len(stuck) > 0 {
		msg += "; tapping " + quote(stuck) + " closed nothing"
	}
	return msg
}

func (b popupButton) key() string { return b.label + "@" + b.bounds.String() }

// count counts the elements of els that look like b.
func (b popupButton) count(els []uitree.Element) int {
	n := 0
	for _, e := range els {
		if e.Bounds == b.bounds && e.Label() == b.label {
			n++
		}
	}
	return n
}

// readTree reads and parses the device's UI tree.
func readTree(ctx context.Context, sd device.SourceDumper) ([]uitree.Element, error) {
	src, err := sd.Source(ctx)
	if err != nil {
		return nil, err
	}
	els, err := uitree.Parse(src)
	if err != nil {
		return nil, fmt.Errorf("the UI tree is unreadable: %w; retry, or close the popup by hand (peek, then tap its button)", err)
	}
	return els, nil
}

// awaitGone re-reads the UI tree until b is gone or popupSettle passes, and returns the last tree.
func awaitGone(ctx context.Context, sd device.SourceDumper, b popupButton) ([]uitree.Element, bool, error) {
	deadline := time.Now().Add(popupSettle)
	for {
		els, err := readTree(ctx, sd)
		if err != nil {
			return nil, false, err
		}
		if b.count(els) < b.copies {
			return els, true, nil
		}
		if time.Now().After(deadline) {
			return els, false, nil
		}
		select {
		case <-ctx.Done():
			return nil, false, ctx.Err()
		case <-time.After(popupPoll):
		}
	}
}

// pickDismiss finds the button to tap next: a visible element labelled with a dismiss label
// that is clickable itself or inside something clickable, preferring buttons of the popup
// drawn on top, then the most dismissive label, then the button drawn on top. tried are
// buttons tapped in vain.
func pickDismiss(els []uitree.Element, screen image.Rectangle, tried map[string]bool) (popupButton, bool) {
	parents := parentsOf(els)
	// A dump whose root is smaller than the screen is a dialog's own window.
	window := len(els) > 0 && !els[0].Bounds.Empty() && els[0].Bounds.Dx()*els[0].Bounds.Dy()*10 < screen.Dx()*screen.Dy()*9
	var best popupButton
	found := false
	for i, e := range els {
		label := e.Label()
		if label == "" || len(label) > 40 || e.Bounds.Intersect(screen).Empty() {
			continue
		}
		dialog := dialogOf(els, parents, i)
		if dialog < 0 && window {
			dialog = 0
		}
		rank := slices.Index(dismissLabels, strings.ToLower(label))
		if rank < 0 && dialog >= 0 {
			if r := slices.Index(dialogLabels, strings.ToLower(label)); r >= 0 {
				rank = len(dismissLabels) + r
			}
		}
		if rank < 0 || !clickableAt(els, parents, i) {
			continue
		}
		b := popupButton{label: label, bounds: e.Bounds, dialog: dialog, rank: rank, index: i}
		if tried[b.key()] {
			continue
		}
		if !found || b.better(best) {
			best, found = b, true
		}
	}
	best.copies = best.count(els)
	return best, found
}

func (b popupButton) better(o popupButton) bool {
	if b.dialog != o.dialog {
		return b.dialog > o.dialog
	}
	if b.rank != o.rank {
		return b.rank < o.rank
	}
	return b.index > o.index
}

// parentsOf returns each element's parent index (-1 for roots), from the elements' depths.
func parentsOf(els []uitree.Element) []int {
	parents := make([]int, len(els))
	var open []int // the chain of ancestors of the current element, by depth
	for i, e := range els {
		open = open[:min(e.Depth, len(open))]
		parents[i] = -1
		if len(open) > 0 {
			parents[i] = open[len(open)-1]
		}
		open = append(open, i)
	}
	return parents
}

// clickableAt says whether a tap on element i reaches something clickable: it or an ancestor.
func clickableAt(els []uitree.Element, parents []int, i int) bool {
	for ; i >= 0; i = parents[i] {
		if els[i].Clickable {
			return true
		}
	}
	return false
}

// dialogOf returns the index of the popup container element i sits in (itself included), or
// -1. An AlertDialog's button (android:id/button1..3) is in one even when its panel has no id.
func dialogOf(els []uitree.Element, parents []int, i int) int {
	for j := i; j >= 0; j = parents[j] {
		id, class := strings.ToLower(els[j].ResourceID), strings.ToLower(els[j].Class)
		for _, part := range dialogIDs {
			if strings.Contains(id, part) || strings.Contains(class, part) {
				return j
			}
		}
	}
	if strings.HasPrefix(els[i].ResourceID, "android:id/button") {
		return max(parents[i], 0)
	}
	return -1
}
