package uitree_test

import (
	"context"
	"errors"
	"image"
	"strings"
	"testing"

	"github.com/corral-farm/corral/nodes/sim"
	"github.com/corral-farm/corral/nodes/uitree"
)

// A dump as a real phone's uiautomator writes it to /dev/tty, trailer included.
const realDump = `<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation="0">` +
	`<node index="0" text="" resource-id="" class="android.widget.FrameLayout" package="com.example" content-desc="" checkable="false" checked="false" clickable="false" enabled="true" focusable="false" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" bounds="[0,0][1080,2400]">` +
	`<node index="0" text="Sign in" resource-id="com.example:id/login" class="android.widget.Button" package="com.example" content-desc="" checkable="false" checked="false" clickable="true" enabled="true" focusable="true" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" bounds="[100,200][980,320]" />` +
	`<node index="1" text="" resource-id="com.example:id/pw" class="android.widget.EditText" package="com.example" content-desc="Password" checkable="false" checked="false" clickable="true" enabled="true" focusable="true" focused="true" scrollable="false" long-clickable="true" password="true" selected="false" bounds="[100,400][980,520]" />` +
	`<node index="2" text="Tom &amp; &quot;Jerry&quot;&#10;  show" resource-id="" class="android.widget.TextView" package="com.example" content-desc="" checkable="false" checked="false" clickable="false" enabled="true" focusable="false" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" bounds="[-20,600][1100,700]" />` +
	`</node></hierarchy>` + "\nUI hierchary dumped to: /dev/tty\n"

func TestParseRealDump(t *testing.T) {
	els, err := uitree.Parse(realDump)
	if err != nil {
		t.Fatal(err)
	}
	if len(els) != 4 {
		t.Fatalf("got %d elements, want 4: %+v", len(els), els)
	}
	root, btn, pw, txt := els[0], els[1], els[2], els[3]
	if root.Depth != 0 || btn.Depth != 1 || root.Index != 0 || txt.Index != 3 {
		t.Errorf("depth/index: %d %d %d %d", root.Depth, btn.Depth, root.Index, txt.Index)
	}
	if root.Bounds != image.Rect(0, 0, 1080, 2400) || btn.Bounds != image.Rect(100, 200, 980, 320) {
		t.Errorf("bounds %v %v", root.Bounds, btn.Bounds)
	}
	if btn.Class != "android.widget.Button" || btn.Text != "Sign in" || btn.ResourceID != "com.example:id/login" ||
		btn.Package != "com.example" || !btn.Clickable || !btn.Enabled || btn.Focused {
		t.Errorf("button %+v", btn)
	}
	if !pw.Password || !pw.Focused || !pw.LongClickable || pw.Label() != "Password" || pw.Kind() != uitree.KindInput {
		t.Errorf("password field %+v label %q kind %q", pw, pw.Label(), pw.Kind())
	}
	if txt.Label() != `Tom & "Jerry" show` || txt.Bounds != image.Rect(-20, 600, 1100, 700) || txt.Kind() != uitree.KindText {
		t.Errorf("text %q %v %s", txt.Label(), txt.Bounds, txt.Kind())
	}
	if root.Kind() != uitree.KindView || btn.Kind() != uitree.KindButton {
		t.Errorf("kinds %s %s", root.Kind(), btn.Kind())
	}
}

func TestParseBounds(t *testing.T) {
	for in, want := range map[string]image.Rectangle{
		"[0,0][1080,2400]":    image.Rect(0, 0, 1080, 2400),
		" [1, 2][3 ,4] ":      image.Rect(1, 2, 3, 4),
		"[-5,-6][0,0]":        image.Rect(-5, -6, 0, 0),
		"[10,10][10,10]":      image.Rect(10, 10, 10, 10),
		"[0,0][1048576,1]":    image.Rect(0, 0, 1<<20, 1),
		"[0,+3][4,5]":         image.Rect(0, 3, 4, 5),
		"[007,0][8,9]":        image.Rect(7, 0, 8, 9),
		"[0,0][1080,2400]   ": image.Rect(0, 0, 1080, 2400),
	} {
		got, err := uitree.ParseBounds(in)
		if err != nil || got != want {
			t.Errorf("ParseBounds(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "[", "[0,0]", "[0,0][1,1][2,2]", "[0,0][1]", "[a,0][1,1]", "[0;0][1,1]",
		"[0,0][1,1", "0,0,1,1", "[1.5,0][2,2]", "[0,0][1048577,1]", "[9,0][1,1]", "[0,9][1,1]",
		"[0,0]x[1,1]", "[0,0][1,1]x", "[99999999999999999999,0][1,1]", "[,][,]", "[0,0,0][1,1]"} {
		if r, err := uitree.ParseBounds(in); err == nil {
			t.Errorf("ParseBounds(%q) = %v, want an error", in, r)
		}
	}
}

// A node with malformed bounds is kept, with empty bounds; the rest of the dump still parses.
func TestParseMalformedBoundsIsEmpty(t *testing.T) {
	els, err := uitree.Parse(`<hierarchy><node text="a" bounds="[9,9][1,1]"/><node text="b" bounds="[1,1][2,2]"/></hierarchy>`)
	if err != nil || len(els) != 2 {
		t.Fatalf("%v %v", els, err)
	}
	if !els[0].Bounds.Empty() || els[1].Bounds != image.Rect(1, 1, 2, 2) {
		t.Fatalf("bounds %v %v", els[0].Bounds, els[1].Bounds)
	}
}

func TestParseRefuses(t *testing.T) {
	deep := strings.Repeat("<node>", uitree.MaxDepth+1) + strings.Repeat("</node>", uitree.MaxDepth+1)
	many := "<hierarchy>" + strings.Repeat(`<node bounds="[0,0][1,1]"/>`, uitree.MaxElements+1) + "</hierarchy>"
	for name, c := range map[string]struct {
		in   string
		want error
	}{
		"too large": {strings.Repeat(" ", uitree.MaxBytes+1), uitree.ErrTooLarge},
		"too deep":  {deep, uitree.ErrTooDeep},
		"too many":  {many, uitree.ErrTooMany},
		"empty":     {"", uitree.ErrNoRoot},
		"no xml":    {"ERROR: could not get idle state.", uitree.ErrNoRoot},
	} {
		if _, err := uitree.Parse(c.in); !errors.Is(err, c.want) {
			t.Errorf("%s: got %v, want %v", name, err, c.want)
		}
	}
	for _, in := range []string{
		"<hierarchy><node>",              // cut short
		"<hierarchy></node>",             // mismatched
		`<hierarchy><node text="a&b;"/>`, // unknown entity
		`<hierarchy><node text="a"`,      // unterminated tag
		`<hierarchy><node bounds='[0,0][1,1]' bounds='[0,0][2,2]'/></hierarchy>`[:20],
	} {
		if els, err := uitree.Parse(in); err == nil {
			t.Errorf("Parse(%q) = %v, want an error", in, els)
		}
	}
	// Exactly at the limits is fine.
	ok := strings.Repeat("<node>", uitree.MaxDepth) + strings.Repeat("</node>", uitree.MaxDepth)
	if els, err := uitree.Parse(ok); err != nil || len(els) != uitree.MaxDepth || els[len(els)-1].Depth != uitree.MaxDepth-1 {
		t.Fatalf("depth %d: %d elements, %v", uitree.MaxDepth, len(els), err)
	}
}

// Leading noise before the XML (adb warnings) and anything after the root are ignored.
func TestParseIgnoresNoiseAroundTheDump(t *testing.T) {
	els, err := uitree.Parse("WARNING: linker: something\n<hierarchy><node text=\"x\"/></hierarchy><trailing>junk")
	if err != nil || len(els) != 1 || els[0].Text != "x" {
		t.Fatalf("%v %v", els, err)
	}
}

func TestKinds(t *testing.T) {
	for class, want := range map[string]string{
		"android.widget.Button":                                   "button",
		"android.widget.ImageButton":                              "button",
		"com.google.android.material.button.MaterialButton":       "button",
		"android.widget.TextView":                                 "text",
		"android.widget.EditText":                                 "input",
		"android.widget.ImageView":                                "image",
		"androidx.recyclerview.widget.RecyclerView":               "list",
		"android.widget.ScrollView":                               "list",
		"android.widget.Switch":                                   "switch",
		"androidx.appcompat.widget.SwitchCompat":                  "switch",
		"android.widget.ToggleButton":                             "switch",
		"android.widget.CheckBox":                                 "checkbox",
		"android.widget.RadioButton":                              "radio",
		"android.widget.SeekBar":                                  "slider",
		"android.widget.ProgressBar":                              "progress",
		"android.webkit.WebView":                                  "web",
		"android.widget.FrameLayout":                              "view",
		"":                                                        "view",
		"com.example.FancyButton":                                 "button",
		"com.example.Outer$InnerTextView":                         "text",
		"com.google.android.material.textfield.TextInputEditText": "input",
	} {
		if got := (uitree.Element{Class: class}).Kind(); got != want {
			t.Errorf("Kind(%q) = %s, want %s", class, got, want)
		}
	}
	// Clickable texts, images and layouts act as buttons; clickable inputs stay inputs.
	for class, want := range map[string]string{"android.widget.TextView": "button", "android.widget.ImageView": "button",
		"android.widget.LinearLayout": "button", "android.widget.EditText": "input", "android.widget.Switch": "switch"} {
		if got := (uitree.Element{Class: class, Clickable: true}).Kind(); got != want {
			t.Errorf("clickable Kind(%q) = %s, want %s", class, got, want)
		}
	}
}

func TestLabel(t *testing.T) {
	for _, c := range []struct{ text, desc, want string }{
		{"OK", "Confirm", "OK"},
		{"", "Confirm", "Confirm"},
		{"  \n ", "Confirm", "Confirm"},
		{"a\t\tb\n c", "", "a b c"},
		{"", "", ""},
	} {
		if got := (uitree.Element{Text: c.text, ContentDesc: c.desc}).Label(); got != c.want {
			t.Errorf("Label(%q, %q) = %q, want %q", c.text, c.desc, got, c.want)
		}
	}
}

func TestLabels(t *testing.T) {
	for _, c := range []struct {
		text, desc string
		want       []string
	}{
		{"Clear", "Clear note", []string{"Clear", "Clear note"}},
		{"", " Confirm ", []string{"Confirm"}},
		{"OK", "", []string{"OK"}},
		{"O  K", "O K", []string{"O K"}},
		{"", "", nil},
	} {
		got := (uitree.Element{Text: c.text, ContentDesc: c.desc}).Labels()
		if strings.Join(got, "|") != strings.Join(c.want, "|") || len(got) != len(c.want) {
			t.Errorf("Labels(%q, %q) = %q, want %q", c.text, c.desc, got, c.want)
		}
	}
}

// The simulated phone's dumps parse, and every node's bounds lie on its screen.
func TestParseSimDumps(t *testing.T) {
	p := sim.New("uitree")
	defer p.Close()
	ctx := context.Background()
	for _, pkg := range []string{"", "com.corral.settings", "com.corral.shop", "com.corral.notes"} {
		if pkg != "" {
			if err := p.LaunchApp(ctx, pkg); err != nil {
				t.Fatal(err)
			}
		}
		src, err := p.Source(ctx)
		if err != nil {
			t.Fatal(err)
		}
		els, err := uitree.Parse(src)
		if err != nil {
			t.Fatalf("%s: %v", pkg, err)
		}
		if len(els) < 5 {
			t.Fatalf("%s: only %d elements", pkg, len(els))
		}
		screen := image.Rect(0, 0, 1080, 2400)
		for _, e := range els {
			if e.Bounds.Empty() || !e.Bounds.In(screen) {
				t.Errorf("%s: element %d %q has bounds %v", pkg, e.Index, e.Label(), e.Bounds)
			}
		}
	}
}

func BenchmarkParse(b *testing.B) {
	p := sim.New("bench")
	defer p.Close()
	if err := p.LaunchApp(context.Background(), "com.corral.settings"); err != nil {
		b.Fatal(err)
	}
	src, err := p.Source(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		if _, err := uitree.Parse(src); err != nil {
			b.Fatal(err)
		}
	}
}
