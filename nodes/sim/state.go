package sim

import "unicode/utf8"

// screen is which page a view shows.
type screen uint8

const (
	scrHome      screen = iota
	scrApp              // a simple app page; arg is the app index
	scrSettings         // the settings list
	scrSetting          // a settings detail page; arg is the row
	scrShop             // the shop's item list
	scrShopItem         // one shop item; arg is its number, 1-based
	scrNotes            // the note editor; its field always has focus
	scrInstalled        // the page of an app installed on the phone; app is its package
)

// view is one entry of the back stack.
type view struct {
	scr    screen
	arg    int16
	scroll int32  // pixels the view's list is scrolled by
	app    string // scrInstalled: the installed app's package (bundle id on an iPhone)
}

// Toggles kept in state.flags, by bit.
const (
	bitWiFi = iota
	bitBluetooth
	bitLocation
	bitPlaying
)

const (
	flagWiFi      uint16 = 1 << bitWiFi
	flagBluetooth uint16 = 1 << bitBluetooth
	flagLocation  uint16 = 1 << bitLocation
	flagPlaying   uint16 = 1 << bitPlaying
)

const (
	defaultFlags  = flagWiFi | flagBluetooth | flagLocation
	defaultVolume = 7
	maxVolume     = 15
	maxBack       = 32   // back stack depth; the oldest entries fall off
	maxPin        = 16   // digits the lock screen takes
	maxNote       = 2000 // runes the note holds
)

// state is everything a phone remembers about its screen. It is small on purpose: the element
// tree, and from it the pixels and the XML, are derived from it on demand.
type state struct {
	cur    view
	back   []view
	locked bool
	wrong  bool   // the last passcode entered was wrong
	pin    string // digits entered on the lock screen so far
	volume int8
	flags  uint16
	note   string
	toast  string  // a message shown until the next input
	popup  *dialog // a modal dialog over the screen (ShowPopup); nil when none is open
	paste  bool    // the Paste menu shows over the note (a long press on it, the clipboard full)
}

// dialog is a modal popup: a title and 1 to maxButtons buttons, any of which closes it.
type dialog struct {
	title   string
	buttons []string
}

const maxButtons = 3

// action is what tapping an element does.
type action struct {
	op  actOp
	scr screen // actOpen
	arg int16
}

type actOp uint8

const (
	actNone    actOp = iota
	actOpen          // open view{scr, arg} on top of the current one
	actBack          // like the BACK key
	actToggle        // flip flag 1<<arg
	actToast         // show apps[arg].toast
	actCart          // add shop item arg to the cart
	actClear         // empty the note
	actDigit         // type digit arg on the lock screen
	actDelete        // delete the last lock screen digit
	actEnter         // submit the lock screen digits
	actDismiss       // close the popup
	actPaste         // paste the clipboard into the note (the Phone does: it holds the clipboard)
)

func (s *state) open(v view) {
	if s.cur.scr == v.scr && s.cur.arg == v.arg && s.cur.app == v.app {
		return
	}
	if len(s.back) == maxBack {
		copy(s.back, s.back[1:])
		s.back = s.back[:maxBack-1]
	}
	s.back = append(s.back, s.cur)
	s.cur = v
}

func (s *state) goBack() {
	n := len(s.back)
	if n == 0 {
		return
	}
	s.cur = s.back[n-1]
	s.back = s.back[:n-1]
	if n == 1 {
		s.back = nil
	}
}

func (s *state) goHome() {
	s.cur = view{scr: scrHome}
	s.back = nil
}

func (s *state) do(a action, passcode string) {
	switch a.op {
	case actOpen:
		s.open(view{scr: a.scr, arg: a.arg})
	case actBack:
		s.goBack()
	case actToggle:
		s.flags ^= 1 << a.arg
	case actToast:
		s.toast = apps[a.arg].toast
	case actCart:
		s.toast = "Added " + itemName(int(a.arg)) + " to cart"
	case actClear:
		s.note = ""
	case actDigit:
		s.digit(byte('0'+a.arg), passcode)
	case actDelete:
		s.deleteDigit()
	case actEnter:
		s.submit(passcode)
	case actDismiss:
		s.popup = nil
	}
}

// digit types one passcode digit; reaching the passcode's length submits, as Android's PIN
// auto-confirm does.
func (s *state) digit(d byte, passcode string) {
	s.wrong = false
	if len(s.pin) < maxPin {
		s.pin += string(d)
	}
	if len(s.pin) >= len(passcode) {
		s.submit(passcode)
	}
}

func (s *state) deleteDigit() {
	s.wrong = false
	if n := len(s.pin); n > 0 {
		s.pin = s.pin[:n-1]
	}
}

func (s *state) submit(passcode string) {
	if s.pin == "" {
		return
	}
	if s.pin == passcode {
		s.locked = false
	} else {
		s.wrong = true
	}
	s.pin = ""
}

func (s *state) lock() {
	s.locked, s.pin, s.wrong = true, "", false
}

// typeNote appends text to the note, keeping at most maxNote runes; it reports whether it all
// fitted.
func (s *state) typeNote(text string) bool {
	room := maxNote - utf8.RuneCountInString(s.note)
	n := 0
	for i := range text {
		if n == room {
			s.note += text[:i]
			return false
		}
		n++
	}
	s.note += text
	return true
}

func (s *state) deleteNoteRune() {
	if s.note == "" {
		return
	}
	_, size := utf8.DecodeLastRuneInString(s.note)
	s.note = s.note[:len(s.note)-size]
}

func (s *state) changeVolume(d int8) {
	s.volume = int8(clamp(int(s.volume+d), 0, maxVolume))
	s.toast = "Volume " + itoa(int(s.volume)) + " of " + itoa(maxVolume)
}
