// Package uitree parses Android UI hierarchy dumps (the XML of `uiautomator dump`, which the
// iOS and browser drivers write too) into a flat list of elements with pixel bounds, for element
// listings (peek) and anything else that needs to know what is on screen without a vision model.
//
// The input comes from a device, so it is treated as hostile: its size, nesting depth and
// element count are bounded, and nothing in it can make Parse panic, loop or allocate beyond
// those bounds.
package uitree

import (
	"encoding/xml"
	"errors"
	"fmt"
	"image"
	"io"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Limits on what Parse accepts. Real dumps are a few hundred kilobytes, a few dozen levels deep
// and a few thousand nodes at most.
const (
	MaxBytes    = 16 << 20
	MaxDepth    = 256
	MaxElements = 20000
	// maxCoord bounds a coordinate in bounds="[l,t][r,b]"; beyond it the bounds are malformed.
	maxCoord = 1 << 20
)

// Errors Parse returns (wrapped, with details).
var (
	ErrTooLarge = errors.New("UI dump too large")
	ErrTooDeep  = errors.New("UI dump nested too deeply")
	ErrTooMany  = errors.New("UI dump has too many elements")
	ErrNoRoot   = errors.New("UI dump has no XML element")
)

// Element is one <node> of a dump, in document order (parents before their children).
type Element struct {
	Index       int    // position among the dump's nodes, from 0
	Depth       int    // 0 for a node directly under <hierarchy>
	Class       string // e.g. android.widget.Button
	Package     string
	Text        string
	ResourceID  string
	ContentDesc string
	// Bounds are pixels of the screenshot; right and bottom are exclusive. Malformed or missing
	// bounds are the empty rectangle.
	Bounds image.Rectangle

	Clickable, LongClickable, Checkable, Checked, Enabled bool
	Focusable, Focused, Scrollable, Password, Selected    bool
}

// Parse parses a uiautomator dump. Bytes before the first '<' and after the root element ends
// (adb prints "UI hierchary dumped to: /dev/tty" there) are ignored. Elements other than <node>
// (the <hierarchy> root, anything unknown) are walked through but not returned.
func Parse(dump string) ([]Element, error) {
	if len(dump) > MaxBytes {
		return nil, fmt.Errorf("%w: %d bytes, at most %d", ErrTooLarge, len(dump), MaxBytes)
	}
	if i := strings.IndexByte(dump, '<'); i > 0 {
		dump = dump[i:]
	}
	d := xml.NewDecoder(strings.NewReader(dump))
	var (
		out      []Element
		depth    int // open elements
		nodes    []int
		sawStart bool
	)
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("UI dump is not well-formed XML: %w", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			sawStart = true
			depth++
			if depth > MaxDepth {
				return nil, fmt.Errorf("%w: deeper than %d levels", ErrTooDeep, MaxDepth)
			}
			if t.Name.Local != "node" {
				nodes = append(nodes, -1)
				continue
			}
			if len(out) == MaxElements {
				return nil, fmt.Errorf("%w: more than %d", ErrTooMany, MaxElements)
			}
			e := element(t.Attr)
			e.Index = len(out)
			e.Depth = nodeDepth(nodes)
			out = append(out, e)
			nodes = append(nodes, e.Index)
		case xml.EndElement:
			depth-- // Token has checked that it matches the open element
			nodes = nodes[:len(nodes)-1]
		}
		if sawStart && depth == 0 {
			break // the root element ended
		}
	}
	if !sawStart {
		return nil, ErrNoRoot
	}
	if depth != 0 {
		return nil, fmt.Errorf("UI dump is not well-formed XML: %d elements left open (cut short?)", depth)
	}
	return out, nil
}

// nodeDepth is how many <node> ancestors the next node has.
func nodeDepth(open []int) int {
	n := 0
	for _, i := range open {
		if i >= 0 {
			n++
		}
	}
	return n
}

func element(attrs []xml.Attr) Element {
	var e Element
	for _, a := range attrs {
		v := a.Value
		switch a.Name.Local {
		case "class":
			e.Class = v
		case "package":
			e.Package = v
		case "text":
			e.Text = v
		case "resource-id":
			e.ResourceID = v
		case "content-desc":
			e.ContentDesc = v
		case "bounds":
			e.Bounds, _ = ParseBounds(v)
		case "clickable":
			e.Clickable = v == "true"
		case "long-clickable":
			e.LongClickable = v == "true"
		case "checkable":
			e.Checkable = v == "true"
		case "checked":
			e.Checked = v == "true"
		case "enabled":
			e.Enabled = v == "true"
		case "focusable":
			e.Focusable = v == "true"
		case "focused":
			e.Focused = v == "true"
		case "scrollable":
			e.Scrollable = v == "true"
		case "password":
			e.Password = v == "true"
		case "selected":
			e.Selected = v == "true"
		}
	}
	return e
}

// ParseBounds parses uiautomator's bounds="[left,top][right,bottom]". Coordinates are integers
// (negative ones happen for views partly off screen); right and bottom must not be less than
// left and top.
func ParseBounds(s string) (image.Rectangle, error) {
	var v [4]int
	rest := strings.TrimSpace(s)
	for i := range v {
		if i%2 == 0 {
			if !strings.HasPrefix(rest, "[") {
				return image.Rectangle{}, fmt.Errorf("bounds %q: want [left,top][right,bottom]", clip(s))
			}
			rest = rest[1:]
		}
		end := strings.IndexAny(rest, ",]")
		if end < 0 || (i%2 == 0) != (rest[end] == ',') {
			return image.Rectangle{}, fmt.Errorf("bounds %q: want [left,top][right,bottom]", clip(s))
		}
		n, err := strconv.Atoi(strings.TrimSpace(rest[:end]))
		if err != nil || n < -maxCoord || n > maxCoord {
			return image.Rectangle{}, fmt.Errorf("bounds %q: %q is not a pixel coordinate", clip(s), clip(rest[:end]))
		}
		v[i] = n
		rest = rest[end+1:]
	}
	if strings.TrimSpace(rest) != "" {
		return image.Rectangle{}, fmt.Errorf("bounds %q: unexpected %q after the rectangle", clip(s), clip(rest))
	}
	if v[2] < v[0] || v[3] < v[1] {
		return image.Rectangle{}, fmt.Errorf("bounds %q: right/bottom before left/top", clip(s))
	}
	return image.Rect(v[0], v[1], v[2], v[3]), nil
}

// Label is what the element says: its text, or else its content description, with runs of
// white space folded to one space.
func (e Element) Label() string {
	if l := fold(e.Text); l != "" {
		return l
	}
	return fold(e.ContentDesc)
}

// Labels are everything the element says, folded as Label folds it: its text, then its
// content description where that is another (a button reading "Clear" described as "Clear
// note"). A search for what the element says matches either.
func (e Element) Labels() []string {
	text, desc := fold(e.Text), fold(e.ContentDesc)
	switch {
	case text == "" && desc == "":
		return nil
	case text == "":
		return []string{desc}
	case desc == "" || desc == text:
		return []string{text}
	}
	return []string{text, desc}
}

func fold(s string) string {
	if s == "" {
		return ""
	}
	return strings.Join(strings.FieldsFunc(s, func(r rune) bool { return unicode.IsSpace(r) || r == utf8.RuneError }), " ")
}

// Element kinds, as an agent reads them.
const (
	KindButton   = "button"
	KindText     = "text"
	KindInput    = "input"
	KindImage    = "image"
	KindList     = "list"
	KindSwitch   = "switch"
	KindCheckbox = "checkbox"
	KindRadio    = "radio"
	KindSlider   = "slider"
	KindProgress = "progress"
	KindWeb      = "web"
	KindTabs     = "tabs"
	KindView     = "view"
)

// classKinds maps a class's simple name (after the last '.' or '$') to its kind. Names not here
// are matched by suffix in Kind.
var classKinds = map[string]string{
	"Button": KindButton, "ImageButton": KindButton, "FloatingActionButton": KindButton,
	"MaterialButton": KindButton, "ExtendedFloatingActionButton": KindButton, "Chip": KindButton,
	"TextView": KindText, "CheckedTextView": KindText, "AppCompatTextView": KindText, "MaterialTextView": KindText,
	"EditText": KindInput, "AutoCompleteTextView": KindInput, "MultiAutoCompleteTextView": KindInput,
	"TextInputEditText": KindInput, "AppCompatEditText": KindInput, "SearchView": KindInput,
	"ImageView": KindImage, "AppCompatImageView": KindImage, "ShapeableImageView": KindImage,
	"RecyclerView": KindList, "ListView": KindList, "GridView": KindList, "ScrollView": KindList,
	"HorizontalScrollView": KindList, "NestedScrollView": KindList, "ViewPager": KindList, "ViewPager2": KindList,
	"Switch": KindSwitch, "SwitchCompat": KindSwitch, "SwitchMaterial": KindSwitch, "ToggleButton": KindSwitch,
	"CheckBox": KindCheckbox, "AppCompatCheckBox": KindCheckbox, "MaterialCheckBox": KindCheckbox,
	"RadioButton": KindRadio, "AppCompatRadioButton": KindRadio,
	"SeekBar": KindSlider, "RatingBar": KindSlider, "Slider": KindSlider,
	"ProgressBar": KindProgress,
	"WebView":     KindWeb,
	"TabWidget":   KindTabs, "TabLayout": KindTabs,
}

// Kind names what the element is from its class (Android's, iOS's XCUIElementType or a web
// page's tag): button, text, input, image, list, switch, checkbox, radio, slider, progress,
// web, tabs, or view for layouts and unknown classes. A clickable text, image or view is a
// button: tapping it does something.
func (e Element) Kind() string {
	k, ok := otherPlatformKind(e)
	if !ok {
		k = classKind(e.Class)
	}
	if e.Clickable && (k == KindText || k == KindImage || k == KindView) {
		return KindButton
	}
	return k
}

func classKind(class string) string {
	name := class
	if i := strings.LastIndexAny(name, ".$"); i >= 0 {
		name = name[i+1:]
	}
	if k, ok := classKinds[name]; ok {
		return k
	}
	for _, s := range []struct{ suffix, kind string }{
		{"Switch", KindSwitch}, {"CheckBox", KindCheckbox}, {"RadioButton", KindRadio},
		{"Button", KindButton}, {"EditText", KindInput}, {"TextView", KindText},
		{"ImageView", KindImage}, {"RecyclerView", KindList}, {"ListView", KindList}, {"ScrollView", KindList},
	} {
		if strings.HasSuffix(name, s.suffix) {
			return s.kind
		}
	}
	return KindView
}

// clip shortens a device's string for an error message.
func clip(s string) string {
	const most = 40
	if len(s) <= most {
		return s
	}
	n := most
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
