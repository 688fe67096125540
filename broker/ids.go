package broker

import (
	"crypto/rand"
	"encoding/base32"
	"strings"
)

var idEncoding = base32.StdEncoding.WithPadding(base32.NoPadding)

// randomID returns prefix and n (at most 32) random bytes in lowercase base32, in one
// allocation: every tool call takes an id.
func randomID(prefix string, n int) string {
	var raw [32]byte
	var enc [56]byte // idEncoding.EncodedLen(32)
	b, e := raw[:n], enc[:idEncoding.EncodedLen(n)]
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24+)
	idEncoding.Encode(e, b)
	for i, c := range e {
		if c >= 'A' && c <= 'Z' {
			e[i] = c + ('a' - 'A')
		}
	}
	var id strings.Builder
	id.Grow(len(prefix) + len(e))
	id.WriteString(prefix)
	id.Write(e)
	return id.String()
}

// NewTaskID returns a new task id: unique, and safe as a NATS subject token.
func NewTaskID() string { return randomID("t_", 10) }

// NewLeaseHandle returns a new lease handle: 128 random bits, unguessable.
func NewLeaseHandle() string { return randomID("lease_", 16) }

// NewBootID returns an id for one start of a node.
func NewBootID() string { return randomID("", 8) }

// Token turns a serial into a NATS subject token and KV key: letters, digits, '-' and '_'
// stay; every other byte becomes =XX (hex). adb serials like 192.168.1.5:5555 contain '.'
// (a subject separator) and ':' (not allowed in keys).
func Token(s string) string {
	safe := true
	for i := 0; i < len(s); i++ {
		if !tokenByte(s[i]) {
			safe = false
			break
		}
	}
	if safe && s != "" {
		return s
	}
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	b.Grow(tokenLen(s)) // one allocation
	for i := 0; i < len(s); i++ {
		c := s[i]
		if tokenByte(c) {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('=')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	if b.Len() == 0 {
		return "=00"
	}
	return b.String()
}

// tokenLen is the length of Token(s) for an s with a byte to escape.
func tokenLen(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		if tokenByte(s[i]) {
			n++
		} else {
			n += 3
		}
	}
	return n
}

func tokenByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_'
}
