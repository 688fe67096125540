package mcp

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/corral-farm/corral/internal/typo"
)

// A cursor is where the next page of a list tool starts: the key (serial) of the last item
// given, the list it belongs to and a fingerprint of the filters it was made with, checked by
// a checksum. It holds no secret and grants nothing (every page is filtered by the caller's
// rights again), so any gateway can read any gateway's cursors without a shared key; the
// checksum is there so that a cursor cut or edited on its way back gets a clear error rather
// than a wrong page.
const (
	cursorVersion  = 1
	cursorSumLen   = 6
	filterPrintLen = 6
	// maxCursorLen bounds the cursor argument: the header, a serial and the checksum in base64.
	maxCursorLen = (2+filterPrintLen+maxSerialLen+cursorSumLen)*4/3 + 4
)

// listKind names the list a cursor pages: a cursor of one list is refused by another.
type listKind byte

const (
	listDevices listKind = 'd'
	listLeases  listKind = 'l'
)

func (k listKind) tool() string {
	if k == listLeases {
		return "list_leases"
	}
	return "list_available_devices"
}

// cursor is a decoded cursor.
type cursor struct {
	kind    listKind
	filters [filterPrintLen]byte // filterPrint of the filters of the call that made it
	after   string               // the page starts after this key
}

// encode returns the cursor as the opaque text handed to callers.
func (c cursor) encode() string {
	raw := append([]byte{cursorVersion, byte(c.kind)}, c.filters[:]...)
	raw = append(raw, c.after...)
	sum := sha256.Sum256(raw)
	return base64.RawURLEncoding.EncodeToString(append(raw, sum[:cursorSumLen]...))
}

// errCursor says what to do with a cursor this gateway cannot use.
var errCursor = errors.New("pass next_cursor exactly as the previous page gave it, with the same filters, or leave cursor out to start again from the first page")

// decodeCursor reads a cursor made by encode for a list of kind with these filters.
func decodeCursor(s string, kind listKind, filters [filterPrintLen]byte) (cursor, error) {
	bad := func(why string) (cursor, error) {
		return cursor{}, fmt.Errorf("cursor %q %s: %w", typo.Shown(s), why, errCursor)
	}
	if len(s) > maxCursorLen {
		return bad(fmt.Sprintf("is %d characters long, longer than any cursor (at most %d)", len(s), maxCursorLen))
	}
	b, err := base64.RawURLEncoding.Strict().DecodeString(s)
	if err != nil || base64.RawURLEncoding.EncodeToString(b) != s { // the decoder skips newlines
		return bad("is not a cursor this gateway gave (not base64url)")
	}
	const head = 2 + filterPrintLen
	if len(b) < head+cursorSumLen {
		return bad("is too short to be a cursor (cut?)")
	}
	raw, sum := b[:len(b)-cursorSumLen], b[len(b)-cursorSumLen:]
	if want := sha256.Sum256(raw); !bytes.Equal(sum, want[:cursorSumLen]) {
		return bad("was changed or cut (its checksum does not match)")
	}
	if raw[0] != cursorVersion {
		return bad(fmt.Sprintf("is of cursor version %d; this gateway reads version %d", raw[0], cursorVersion))
	}
	c := cursor{kind: listKind(raw[1]), after: string(raw[head:])}
	copy(c.filters[:], raw[2:head])
	switch {
	case c.kind != listDevices && c.kind != listLeases:
		return bad("names no list")
	case c.kind != kind:
		return bad(fmt.Sprintf("pages %s, not %s", c.kind.tool(), kind.tool()))
	case c.filters != filters:
		// A print from an older Corral (its filters printed otherwise) cannot be told apart.
		return bad("was made for other filters or by another version of Corral (filters are part of the paging)")
	case c.after == "" || len(c.after) > maxSerialLen || !utf8.ValidString(c.after):
		return bad("holds no valid serial")
	}
	return c, nil
}

// shorten cuts s to at most n bytes (on a character boundary, marked with "…") for an error
// message: typo.Cut, under the name the package's messages use.
func shorten(s string, n int) string { return typo.Cut(s, n) }
