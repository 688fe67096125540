package broker

import (
	"testing"
	"time"
)

// A loss handler held (a reaping gateway's writes into a stalled NATS) does not hold the
// liveness checks: a second node falls silent and is declared lost meanwhile, and its handler
// runs after the first's, in the order of the verdicts.
func TestLossHandlerHeldDoesNotHoldTheChecks(t *testing.T) {
	handled := make(chan string, 4)
	release := make(chan struct{})
	l := NewLiveness(50*time.Millisecond, func(node, _ string) {
		handled <- node
		if node == "n1" {
			<-release
		}
	})
	go l.Run(t.Context())
	l.Beat("n1", "boot-a", time.Now())
	select {
	case got := <-handled:
		if got != "n1" {
			t.Fatalf("first loss handled: %s, want n1", got)
		}
	case <-time.After(waitLong):
		t.Fatal("n1 never declared lost")
	}

	l.Beat("n2", "boot-b", time.Now()) // silent from now, while n1's handler is held
	select {
	case <-l.Lost("n2").Done():
	case <-time.After(waitLong):
		close(release)
		t.Fatal("n2 not declared lost while n1's loss handler was held: the handler holds the checks")
	}
	select {
	case got := <-handled:
		t.Fatalf("%s's loss handled while n1's was still running", got)
	default:
	}
	close(release)
	select {
	case got := <-handled:
		if got != "n2" {
			t.Fatalf("second loss handled: %s, want n2", got)
		}
	case <-time.After(waitLong):
		t.Fatal("n2's loss never handled after n1's")
	}
}
