package android

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"syscall"
	"testing"
	"time"
)

// blackHole is the address of a listener whose accept queue is full, so that a dial to it
// hangs until its deadline: an adb server that answers nothing.
func blackHole(t *testing.T) string {
	t.Helper()
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Close(fd) })
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Listen(fd, 0); err != nil { // a queue of one, never accepted
		t.Fatal(err)
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		t.Fatal(err)
	}
	addr := fmt.Sprintf("127.0.0.1:%d", sa.(*syscall.SockaddrInet4).Port)
	filler, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = filler.Close() })
	return addr
}

// A dial that hangs until the call's deadline ends timed out, every time: the dial's own timer
// fires at the deadline, often before the ctx's, and the call then read as a device that left
// (1 in 8 get_source calls with timeout_ms 1 on a loaded machine).
func TestDialThatHangsToTheDeadlineIsATimeout(t *testing.T) {
	d := &Driver{addr: blackHole(t), serial: "emulator-5554", conns: map[closer]struct{}{}, log: slog.New(slog.DiscardHandler), shellV2: true}
	for range 8 {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		start := time.Now()
		_, err := d.Source(ctx)
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ErrDisconnected) {
			t.Fatalf("a dial that hung to the deadline: %v; want the deadline, not a disconnect", err)
		}
		if took := time.Since(start); took > stopWithin {
			t.Fatalf("took %v", took)
		}
	}
}
