package embedded

import (
	"testing"
	"time"
)

// A user's response window is its own, else nats-server's default of two minutes.
func TestResponseExpires(t *testing.T) {
	if got := (Permissions{AllowResponses: true}).ResponseExpires(); got != 2*time.Minute {
		t.Errorf("no window: %v, want nats-server's 2m0s", got)
	}
	if got := (Permissions{AllowResponses: true, ResponseWindow: 5 * time.Second}).ResponseExpires(); got != 5*time.Second {
		t.Errorf("a 5s window: %v", got)
	}
}
