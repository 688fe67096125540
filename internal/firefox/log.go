package firefox

import (
	"encoding/json"
	"fmt"
)

// logged keeps a log.entryAdded event of level error: an uncaught exception, an unhandled
// rejection, or console.error. b.mu is held.
func (b *Browser) logged(params json.RawMessage) {
	var e struct {
		Level      string `json:"level"`
		Type       string `json:"type"` // javascript (thrown) or console
		Text       string `json:"text"`
		StackTrace struct {
			CallFrames []struct {
				URL        string `json:"url"`
				LineNumber int    `json:"lineNumber"`
			} `json:"callFrames"`
		} `json:"stackTrace"`
	}
	if json.Unmarshal(params, &e) != nil || e.Level != "error" {
		return
	}
	msg := e.Type + ": " + e.Text
	if f := e.StackTrace.CallFrames; len(f) > 0 {
		msg += fmt.Sprintf(" (%s:%d)", f[0].URL, f[0].LineNumber+1)
	}
	b.errors = append(b.errors, msg)
}

// Errors returns what the browser's pages have logged as errors since it started, oldest
// first: uncaught exceptions, unhandled promise rejections, console.error.
func (b *Browser) Errors() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.errors...)
}
