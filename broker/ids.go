package broker

import (
	"crypto/rand"
	"encoding/base32"
	"strings"
)

var idEncoding = base32.StdEncoding.WithPadding(base32.NoPadding)

// randomID returns prefix and n random bytes in lowercase base32.
func randomID(prefix string, n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24+)
	return prefix + strings.ToLower(idEncoding.EncodeToString(b))
}

// NewTaskID returns a new task id: unique, and safe as a NATS subject token.
func NewTaskID() string { return randomID("t_", 10) }

// NewLeaseHandle returns a new lease handle: 128 random bits, unguessable.
func NewLeaseHandle() string { return randomID("lease_", 16) }

// NewBootID returns an id for one start of a node.
func NewBootID() string { return randomID("", 8) }
