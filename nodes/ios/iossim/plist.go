package iossim

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"howett.net/plist"
)

// maxFrame bounds a length-prefixed plist message (lockdown, installation_proxy). Real ones are
// a few kilobytes; a pair record is the largest a host sends.
const maxFrame = 1 << 20

// maxPlistNodes bounds the objects a decoded plist may expand to, so that a small binary plist
// whose objects share children (a "billion laughs") cannot blow up in memory.
const maxPlistNodes = 100_000

// maxPlistDepth bounds nesting, so that decoding cannot recurse without end.
const maxPlistDepth = 256

var errFrameTooLarge = errors.New("message too large")

// readFrame reads one message of the lockdown framing: a 4-byte big-endian length, then a plist.
// It reads exactly the frame and nothing beyond, since the connection may turn to TLS next.
func readFrame(r io.Reader) ([]byte, error) {
	var n [4]byte
	if _, err := io.ReadFull(r, n[:]); err != nil {
		return nil, err
	}
	size := binary.BigEndian.Uint32(n[:])
	if size > maxFrame {
		return nil, fmt.Errorf("%w: %d bytes, at most %d: the peer is not speaking lockdown's framing", errFrameTooLarge, size, maxFrame)
	}
	b, err := readN(r, uint64(size))
	if err != nil {
		return nil, fmt.Errorf("reading a %d-byte message: %w", size, err)
	}
	return b, nil
}

// writeFrame sends v as an XML plist in lockdown's framing, in one write.
func writeFrame(w io.Writer, v any) error {
	body, err := plist.Marshal(v, plist.XMLFormat)
	if err != nil {
		return fmt.Errorf("encoding a reply: %w", err)
	}
	b := make([]byte, 4, 4+len(body))
	binary.BigEndian.PutUint32(b, uint32(len(body)))
	_, err = w.Write(append(b, body...))
	return err
}

// decodePlist decodes an untrusted plist (XML or binary) into v. The plist library recovers its
// own errors but re-panics on runtime errors, which hostile input can cause; this turns every
// panic into an error.
func decodePlist(data []byte, v any) (err error) {
	if err := checkBplist(data); err != nil {
		return err
	}
	if err := checkXMLNesting(data); err != nil {
		return err
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("malformed plist: %v", r)
		}
	}()
	_, err = plist.Unmarshal(data, v)
	if err != nil {
		return fmt.Errorf("malformed plist: %w", err)
	}
	return nil
}

// checkXMLNesting refuses what is neither a binary nor an XML plist (the library would try
// the old text formats, which no iOS service speaks) and XML nested deeper than
// maxPlistDepth, which the parser would take seconds over. It counts container tags wherever
// they appear, so it errs on the side of refusing.
func checkXMLNesting(b []byte) error {
	if bytes.HasPrefix(b, []byte("bplist")) || len(b) == 0 {
		return nil
	}
	if t := bytes.TrimLeft(b, " \t\r\n\ufeff"); len(t) == 0 || t[0] != '<' {
		return errors.New("malformed plist: neither XML nor binary")
	}
	depth := 0
	for i := bytes.IndexByte(b, '<'); i >= 0; i = bytes.IndexByte(b, '<') {
		b = b[i+1:]
		switch {
		case opens(b, "array"), opens(b, "dict"):
			depth++
		case bytes.HasPrefix(b, []byte("/array")), bytes.HasPrefix(b, []byte("/dict")):
			depth--
		}
		if depth > maxPlistDepth {
			return fmt.Errorf("malformed plist: nested deeper than %d", maxPlistDepth)
		}
	}
	return nil
}

// opens tells whether b starts an opening tag of name that is not self-closing.
func opens(b []byte, name string) bool {
	if !bytes.HasPrefix(b, []byte(name)) {
		return false
	}
	end := bytes.IndexByte(b, '>')
	return end > 0 && b[end-1] != '/' && (len(b) == len(name) || b[len(name)] == '>' || b[len(name)] == ' ')
}

// decodeDict decodes an untrusted plist that must be a dictionary.
func decodeDict(data []byte) (map[string]any, error) {
	var m map[string]any
	if err := decodePlist(data, &m); err != nil {
		return nil, err
	}
	if m == nil {
		return nil, errors.New("malformed plist: not a dictionary")
	}
	return m, nil
}

// Getters for decoded dictionaries: a value of the wrong type reads as missing.

func dictString(m map[string]any, key string) string {
	s, _ := m[key].(string)
	return s
}

func dictBytes(m map[string]any, key string) []byte {
	b, _ := m[key].([]byte)
	return b
}

func dictDict(m map[string]any, key string) map[string]any {
	d, _ := m[key].(map[string]any)
	return d
}

func dictBool(m map[string]any, key string) bool {
	b, _ := m[key].(bool)
	return b
}

// dictUint reads a non-negative integer; the plist library decodes integers as uint64 or int64.
func dictUint(m map[string]any, key string) (uint64, bool) {
	switch v := m[key].(type) {
	case uint64:
		return v, true
	case int64:
		if v >= 0 {
			return uint64(v), true
		}
	}
	return 0, false
}

// dictStrings reads an array of strings, skipping what is not a string.
func dictStrings(m map[string]any, key string) []string {
	arr, _ := m[key].([]any)
	var out []string
	for _, v := range arr {
		if s, ok := v.(string); ok {
			out = append(out, s)
		}
	}
	return out
}
