package uitree

import "strings"

// The iOS driver (XCUITest types) and the browser driver (HTML tags) write their trees as
// uiautomator XML with their own names in class; these map them to the kinds Android's
// classes have, so peek says [input] for a text field on every platform.

// xcuiPrefix begins every XCUITest element type (XCUIElementTypeTextField).
const xcuiPrefix = "XCUIElementType"

var xcuiKinds = map[string]string{
	"Button": KindButton, "Cell": KindButton, "Link": KindButton, "Icon": KindButton, "Key": KindButton,
	"MenuItem": KindButton, "MenuBarItem": KindButton, "Tab": KindButton, "DisclosureTriangle": KindButton,
	"PopUpButton": KindButton, "Stepper": KindButton, "ColorWell": KindButton,
	"StaticText": KindText,
	"TextField":  KindInput, "SecureTextField": KindInput, "SearchField": KindInput, "TextView": KindInput,
	"Image": KindImage,
	"Table": KindList, "CollectionView": KindList, "ScrollView": KindList, "Outline": KindList, "Browser": KindList,
	"Switch": KindSwitch, "Toggle": KindSwitch,
	"CheckBox": KindCheckbox, "RadioButton": KindRadio,
	"Slider": KindSlider, "PickerWheel": KindSlider,
	"ProgressIndicator": KindProgress, "ActivityIndicator": KindProgress,
	"WebView": KindWeb,
	"TabBar":  KindTabs, "SegmentedControl": KindTabs,
}

// htmlKinds maps a lower-case HTML tag to its kind. A tag not here is a view, or text where
// it holds text of its own (a div or section with words in it).
var htmlKinds = map[string]string{
	"a": KindButton, "button": KindButton, "summary": KindButton, "option": KindButton, "select": KindButton,
	"input": KindInput, "textarea": KindInput,
	"img": KindImage, "svg": KindImage, "picture": KindImage, "canvas": KindImage, "video": KindImage,
	"p": KindText, "span": KindText, "label": KindText, "h1": KindText, "h2": KindText, "h3": KindText,
	"h4": KindText, "h5": KindText, "h6": KindText, "li": KindText, "td": KindText, "th": KindText,
	"strong": KindText, "em": KindText, "b": KindText, "i": KindText, "small": KindText, "code": KindText,
	"pre": KindText, "blockquote": KindText, "figcaption": KindText, "dt": KindText, "dd": KindText,
	"caption": KindText, "legend": KindText, "time": KindText, "abbr": KindText, "mark": KindText,
	"ul": KindList, "ol": KindList, "table": KindList,
	"progress": KindProgress, "meter": KindProgress,
	"iframe": KindWeb,
}

// otherPlatformKind is the kind of an iOS or web element, ok false for any other class. The
// browser driver writes a dialog's tag as "div dialog".
func otherPlatformKind(e Element) (kind string, ok bool) {
	if name, found := strings.CutPrefix(e.Class, xcuiPrefix); found {
		if k, ok := xcuiKinds[name]; ok {
			return k, true
		}
		return KindView, true
	}
	tag, _, _ := strings.Cut(e.Class, " ")
	if !isHTMLTag(tag) {
		return "", false
	}
	if k, ok := htmlKinds[tag]; ok {
		return k, true
	}
	if fold(e.Text) != "" {
		return KindText, true
	}
	return KindView, true
}

// isHTMLTag: lower-case letters and digits, a letter first. No Android class is one (theirs
// are capitalised, or dotted).
func isHTMLTag(s string) bool {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '-' {
			return false
		}
	}
	return true
}
