package redact

import (
	"strings"
	"testing"
)

// Hide over a large screen dump that holds a secret everywhere: in time proportional to the
// text (it took 15 s for these 200 KB when each occurrence looked again at the whole text for
// keys and earlier cuts).
func BenchmarkHideLongText(b *testing.B) {
	text := strings.Repeat("a", 200_000)
	s := NewSecrets(mark, []string{"aaaaaaaa"}, "web-01")
	for b.Loop() {
		s.Hide(text)
	}
}
