package sim

import (
	"fmt"
	"unicode/utf8"
)

const (
	logSize    = 256 // lines InputLog keeps
	logTextMax = 120 // runes of typed text a log line quotes
)

// inputLog is a ring of the last logSize inputs. It grows on demand so an idle phone costs
// nothing.
type inputLog struct {
	lines []string
	next  int // oldest line once the ring is full
}

func (l *inputLog) add(s string) {
	if len(l.lines) < logSize {
		l.lines = append(l.lines, s)
		return
	}
	l.lines[l.next] = s
	l.next = (l.next + 1) % logSize
}

func (l *inputLog) snapshot() []string {
	out := make([]string, 0, len(l.lines))
	out = append(out, l.lines[l.next:]...)
	return append(out, l.lines[:l.next]...)
}

// InputLog returns the last 256 inputs the phone received, oldest first, one line each:
//
//	tap 540 1200 hold=0s
//	doubletap 540 1200
//	swipe 540 1800 540 600 dur=300ms hold=0s
//	text "hello"
//	key HOME
//	launch com.corral.notes
//	terminate com.corral.notes
//	install com.example.app
//	uninstall com.example.app
//	clear com.corral.notes
//	ime com.android.adbkeyboard/.AdbIME
//	clipboard "hello"
//
// Inputs that were rejected (out of the screen, unknown key) are logged too.
func (p *Phone) InputLog() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.log.snapshot()
}

func textLogLine(s string) string {
	if utf8.RuneCountInString(s) <= logTextMax {
		return fmt.Sprintf("text %q", s)
	}
	n := 0
	for i := range s {
		if n == logTextMax {
			return fmt.Sprintf("text %q...", s[:i])
		}
		n++
	}
	return fmt.Sprintf("text %q", s)
}
