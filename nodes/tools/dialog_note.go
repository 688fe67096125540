package tools

import "strings"

// dialogTaker is a device whose pages' JavaScript dialogs are answered as they open (a
// browser's: one left open stalls the page); TakeDialogs says what they said since it was
// last asked.
type dialogTaker interface {
	TakeDialogs() []string
}

// dialogNote is what the device's dialogs said since the last call, to end a tool's
// message with ("" when none opened).
func dialogNote(t *Task) string {
	dt, ok := t.Driver.(dialogTaker)
	if !ok {
		return ""
	}
	said := dt.TakeDialogs()
	if len(said) == 0 {
		return ""
	}
	return "; " + strings.Join(said, "; ")
}
