package mcp

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzCursor throws arbitrary text at the cursor decoder: it never panics; it refuses with
// errCursor's advice, or accepts only a canonical cursor of the list and filters asked for,
// which encodes back to the same text.
func FuzzCursor(f *testing.F) {
	devices := (&deviceFilter{}).print("false")
	ios := (&deviceFilter{Platform: "ios"}).print("false")
	for _, c := range []cursor{
		{kind: listDevices, filters: devices, after: "emulator-5554"},
		{kind: listLeases, filters: ios, after: "00008101-IPHONE"},
		{kind: listDevices, filters: ios, after: strings.Repeat("é", maxSerialLen/2)},
	} {
		s := c.encode()
		f.Add(s)
		f.Add(s[:5] + "\n" + s[5:]) // base64's decoder skips newlines; decodeCursor must not
	}
	for _, s := range []string{"", "AQ", "page=2", "AQFkAAAAAAAA", strings.Repeat("A", maxCursorLen+1), "____", "Zm9v\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, kind := range []listKind{listDevices, listLeases} {
			for _, p := range [][filterPrintLen]byte{devices, ios} {
				c, err := decodeCursor(s, kind, p)
				if err != nil {
					if !errors.Is(err, errCursor) || !strings.Contains(err.Error(), "cursor") {
						t.Fatalf("decodeCursor(%q): %v: want errCursor's advice", s, err)
					}
					continue
				}
				if c.kind != kind || c.filters != p || c.after == "" || len(c.after) > maxSerialLen || !utf8.ValidString(c.after) {
					t.Fatalf("decodeCursor(%q) accepted %+v for %c %x", s, c, kind, p)
				}
				if e := c.encode(); e != s {
					t.Fatalf("decodeCursor(%q) accepted a cursor that encodes as %q", s, e)
				}
			}
		}
	})
}

// Every cursor encode makes decodes to itself, within the argument's length bound.
func TestCursorRoundTrip(t *testing.T) {
	p := (&deviceFilter{Tags: []string{"b", "a"}}).print("x")
	if p != (&deviceFilter{Tags: []string{"a", "b", "a"}}).print("x") {
		t.Error("the same tags in another order make another filter print")
	}
	for _, after := range []string{"a", "n1-p1", "00008101-001A2B3C", "web-01", "名前", strings.Repeat("s", maxSerialLen), strings.Repeat("é", maxSerialLen/2)} {
		c := cursor{kind: listLeases, filters: p, after: after}
		s := c.encode()
		if len(s) > maxCursorLen {
			t.Errorf("cursor of %d-byte key is %d long, over maxCursorLen %d", len(after), len(s), maxCursorLen)
		}
		got, err := decodeCursor(s, listLeases, p)
		if err != nil || got != c {
			t.Errorf("round trip of %q: %+v, %v", after, got, err)
		}
	}
}
