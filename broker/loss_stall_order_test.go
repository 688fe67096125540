package broker

import (
	"context"
	"sync/atomic"
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

// Run returns only once the loss handler it started has: a gateway stopping does not go on
// writing a verdict into the connection it closes. The handler, held until its context ends,
// is released by Run's end and still held a moment longer (finish), so a Run that did not wait
// for it would return first.
func TestRunReturnsAfterItsLossHandler(t *testing.T) {
	handling, released, finish := make(chan struct{}), make(chan struct{}), make(chan struct{})
	var ended atomic.Bool
	var l *Liveness
	l = NewLiveness(50*time.Millisecond, func(string, string) {
		close(handling)
		<-l.handlerContext().Done()
		close(released)
		<-finish
		ended.Store(true)
	})
	ctx, stop := context.WithCancel(t.Context())
	handlerEndedFirst := make(chan bool, 1)
	go func() {
		l.Run(ctx)
		handlerEndedFirst <- ended.Load()
	}()
	l.Beat("n1", "boot-a", time.Now())
	select {
	case <-handling:
	case <-time.After(waitLong):
		t.Fatal("n1 never declared lost")
	}

	stop()
	select {
	case <-released:
	case <-time.After(waitLong):
		t.Fatal("the loss handler's context did not end with Run's")
	}
	close(finish)
	select {
	case first := <-handlerEndedFirst:
		if !first {
			t.Fatal("Run returned while its loss handler was still running")
		}
	case <-time.After(waitLong):
		t.Fatal("Run did not return after its context ended and its loss handler returned")
	}
}
