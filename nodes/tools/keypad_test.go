package tools

import (
	"fmt"
	"image"
	"math"
	"strconv"
	"strings"
	"testing"
)

// lockScreenThroughCamera is what the real vision worker listed on the digital twin's camera
// frame of the simulated phone's lock screen (1080×2400): every key's disc as a shape, but
// only the digits 2, 5 and 8 read, and the big clock as shapes too.
const lockScreenThroughCamera = `td0712 [text] "12:00" [0.048,0.014,0.138,0.027] 0.95
ta3687 [text] "Vol 7" [0.720,0.014,0.805,0.027] 0.76
t55e95 [text] "100%" [0.864,0.014,0.954,0.027] 0.96
i26525 [icon] "" [0.485,0.139,0.519,0.153] 0.97
ibbb74 [icon] "" [0.298,0.125,0.376,0.183] 0.80
id65b1 [icon] "" [0.381,0.125,0.463,0.183] 0.81
ic84d8 [icon] "" [0.531,0.125,0.617,0.184] 0.82
ia969f [icon] "" [0.624,0.125,0.709,0.184] 0.82
ia7a81 [icon] "" [0.485,0.168,0.519,0.183] 1.00
t3daa2 [text] "Monday, January 1" [0.329,0.211,0.671,0.229] 0.96
t1f2b8 [text] "Enter passcode" [0.349,0.325,0.652,0.344] 0.97
i5a060 [icon] "" [0.128,0.459,0.319,0.545] 0.71
if0ed8 [icon] "" [0.404,0.459,0.596,0.545] 0.73
t165c2 [text] "2" [0.481,0.489,0.513,0.515] 0.97
i624d5 [icon] "" [0.681,0.459,0.872,0.545] 0.74
if7d5a [icon] "" [0.128,0.563,0.319,0.649] 0.73
i8e472 [icon] "" [0.404,0.563,0.596,0.649] 0.73
te07a2 [text] "5" [0.484,0.594,0.514,0.619] 0.81
ic3eb3 [icon] "" [0.681,0.563,0.874,0.649] 0.75
i8af7c [icon] "" [0.126,0.667,0.319,0.753] 0.71
i19f34 [icon] "" [0.404,0.667,0.596,0.753] 0.75
t3173a [text] "8" [0.482,0.698,0.519,0.723] 0.97
iea903 [icon] "" [0.681,0.667,0.872,0.753] 0.75
ib801d [icon] "" [0.128,0.772,0.317,0.858] 0.74
t69358 [text] "Delete" [0.169,0.807,0.275,0.821] 0.96
i63935 [icon] "" [0.406,0.772,0.596,0.858] 0.76
i209c2 [icon] "" [0.681,0.772,0.874,0.858] 0.74
t1dfc3 [text] "OK" [0.742,0.805,0.813,0.824] 0.96`

// parseListing turns peek's listing back into elements on a w×h screenshot.
func parseListing(t *testing.T, listing string, w, h int) []PeekElement {
	t.Helper()
	var out []PeekElement
	for _, line := range strings.Split(listing, "\n") {
		id, rest, _ := strings.Cut(line, " ")
		kind, rest, _ := strings.Cut(strings.TrimPrefix(rest, "["), "] ")
		q := strings.LastIndex(rest, `" [`)
		label, err := strconv.Unquote(rest[:q+1])
		if err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		var b [4]float64
		if _, err := fmt.Sscanf(rest[q+2:], "[%g,%g,%g,%g]", &b[0], &b[1], &b[2], &b[3]); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		px := image.Rect(int(b[0]*float64(w)), int(b[1]*float64(h)), int(b[2]*float64(w)), int(b[3]*float64(h)))
		out = append(out, PeekElement{ID: id, Kind: kind, Label: label, BBox: b, px: px})
	}
	return out
}

// simKey is where the simulated phone's keys (nodes/sim's lock screen at 1080×2400): columns
// at 240, 540, 840, rows from 1205 every 250 px: digit d's key.
func simKey(d int) image.Point {
	if d == 0 {
		return image.Pt(540, 1205+3*250)
	}
	return image.Pt(240+(d-1)%3*300, 1205+(d-1)/3*250)
}

func TestFindKeypadThroughACamera(t *testing.T) {
	els := parseListing(t, lockScreenThroughCamera, 1080, 2400)
	k, ok := findKeypad(els, image.Pt(1080, 2400))
	if !ok {
		t.Fatal("no keypad found")
	}
	for d := range 10 {
		got, want := k.digit(d), simKey(d)
		if math.Hypot(float64(got.X-want.X), float64(got.Y-want.Y)) > 20 {
			t.Errorf("digit %d at %v, want %v", d, got, want)
		}
	}
}

// iPhoneKeys is an iPhone's passcode pad (1170×2532) as OCR reads it with every key: the digit
// and its letters, no shape for the keys' thin rings, "Emergency" and "Cancel" beside the 0.
func iPhoneKeys(read func(d int) bool) []PeekElement {
	letters := []string{"", "", "ABC", "DEF", "GHI", "JKL", "MNO", "PQRS", "TUV", "WXYZ"}
	els := []PeekElement{{Kind: "text", Label: "Enter Passcode", px: image.Rect(380, 600, 790, 660)}}
	for d := range 10 {
		if !read(d) {
			continue
		}
		r, c := 3, 1
		if d > 0 {
			r, c = (d-1)/3, (d-1)%3
		}
		x, y := 290+c*295, 1120+r*270
		label := strings.TrimSpace(strconv.Itoa(d) + " " + letters[d])
		els = append(els, PeekElement{Kind: "text", Label: label, px: image.Rect(x-60, y-50, x+60, y+50)})
	}
	return append(els, PeekElement{Kind: "text", Label: "Emergency", px: image.Rect(180, 2360, 400, 2410)},
		PeekElement{Kind: "text", Label: "Cancel", px: image.Rect(800, 2360, 960, 2410)})
}

func TestFindKeypadOnAnIPhone(t *testing.T) {
	size := image.Pt(1170, 2532)
	for name, read := range map[string]func(int) bool{
		"every digit":   func(int) bool { return true },
		"no 0, no 1":    func(d int) bool { return d > 1 },
		"odd ones only": func(d int) bool { return d%2 == 1 },
	} {
		t.Run(name, func(t *testing.T) {
			k, ok := findKeypad(iPhoneKeys(read), size)
			if !ok {
				t.Fatal("no keypad found")
			}
			if got := k.digit(0); got != image.Pt(585, 1930) {
				t.Errorf("0 at %v, want (585,1930)", got)
			}
			if got := k.digit(7); got != image.Pt(290, 1660) {
				t.Errorf("7 at %v, want (290,1660)", got)
			}
		})
	}
}

func TestFindKeypadFindsNoneWhereThereIsNone(t *testing.T) {
	size := image.Pt(1080, 2400)
	cases := map[string][]PeekElement{
		"nothing": nil,
		// A launcher: a 4×3 grid of app icons, their names read, no digit.
		"app grid": func() []PeekElement {
			var els []PeekElement
			for i := range 12 {
				x, y := 135+i%4*270, 500+i/4*300
				els = append(els, PeekElement{Kind: "icon", px: image.Rect(x-80, y-80, x+80, y+80)},
					PeekElement{Kind: "text", Label: "App", px: image.Rect(x-50, y+90, x+50, y+120)})
			}
			return els
		}(),
		// The pad's discs, but its digits read where the layout has others (a calculator's pad:
		// 7 8 9 on top).
		"calculator": func() []PeekElement {
			els := parseListing(t, lockScreenThroughCamera, 1080, 2400)
			for i := range els {
				switch els[i].Label {
				case "2":
					els[i].Label = "8"
				case "8":
					els[i].Label = "2"
				}
			}
			return els
		}(),
		// Three digits in a row and nothing else: too few keys to tell a pad.
		"a time": iPhoneKeys(func(d int) bool { return d >= 1 && d <= 3 }),
	}
	for name, els := range cases {
		t.Run(name, func(t *testing.T) {
			if k, ok := findKeypad(els, size); ok {
				t.Errorf("found a keypad %+v", k)
			}
		})
	}
}

func TestPadDigit(t *testing.T) {
	for label, want := range map[string]int{"7": 7, " 0 ": 0, "2 ABC": 2, "0 +": 0, "7 PQRS": 7,
		"12": -1, "2 abc": -1, "a": -1, "": -1, "1 2": -1, "3 DEF G": -1} {
		if got := padDigit(label); got != want {
			t.Errorf("padDigit(%q) = %d, want %d", label, got, want)
		}
	}
}
