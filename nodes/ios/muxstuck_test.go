package ios

import (
	"errors"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/corral-farm/corral/internal/tcplink"
	"github.com/corral-farm/corral/nodes/ios/iossim"
)

// A usbmuxd that takes connections and never answers (kill -STOP) is named as the reason on
// every device behind it, not WebDriverAgent nor trust, and WDA is not restarted for it;
// answering again (kill -CONT), the devices come back.
func TestStuckUsbmuxdIsTheReason(t *testing.T) {
	var link stall
	t.Cleanup(link.release)
	var mux string
	sims, reg := simFarmVia(t, 2, true, func(addr string) string {
		mux = tcplink.Forward(t, addr, link.pipe)
		return mux
	})
	d := ready(t, reg, "ios-sim-01")
	ready(t, reg, "ios-sim-02")
	plugIn(t, sims, iossim.Config{UDID: "ios-untrusted", Untrusted: true})
	eventually(t, 10*time.Second, func() bool {
		err, ok := reg.healthOf("ios-untrusted")
		return ok && errors.Is(err, ErrUntrusted)
	}, "the untrusted iPhone asking for Trust")
	restarts := d.Gauges()["wda_restarts"]

	link.hold()
	cause := "usbmuxd at " + mux + " does not answer: it takes connections but gave no device list"
	for _, serial := range []string{"ios-sim-01", "ios-sim-02", "ios-untrusted"} {
		waitReason(t, reg, serial, cause)
	}
	reg.mu.Lock()
	probed := reg.reports["ios-sim-01"]
	reg.mu.Unlock()
	eventually(t, 20*time.Second, func() bool {
		reg.mu.Lock()
		defer reg.mu.Unlock()
		return reg.reports["ios-sim-01"] >= probed+2
	}, "more probes while usbmuxd is stuck")
	for _, serial := range []string{"ios-sim-01", "ios-sim-02"} {
		if err, _ := reg.healthOf(serial); !strings.HasPrefix(err.Error(), cause) || strings.Contains(err.Error(), "restarted it") {
			t.Errorf("%s's reason: %v", serial, err)
		}
	}
	if got := d.Gauges()["wda_restarts"]; got != restarts {
		t.Errorf("WebDriverAgent restarted %v times while usbmuxd was stuck", got-restarts)
	}

	link.release()
	ready(t, reg, "ios-sim-01")
	ready(t, reg, "ios-sim-02")
	if _, err := d.ForegroundApp(t.Context()); err != nil {
		t.Fatalf("after usbmuxd answers again: %v", err)
	}
}

// waitReason waits for serial to be unhealthy with a reason that starts with prefix.
func waitReason(t *testing.T, reg *registry, serial, prefix string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		err, _ := reg.healthOf(serial)
		if err != nil && strings.HasPrefix(err.Error(), prefix) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s's reason after 20s: %v; want one starting %q", serial, err, prefix)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// stall is a pipe for tcplink.Forward that, while held, passes nothing on (a stopped
// process's socket: the bytes wait in it) and, released, passes on what waited.
type stall struct {
	mu    sync.Mutex
	freed chan struct{} // nil while not held; closed by release
}

func (s *stall) hold() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.freed == nil {
		s.freed = make(chan struct{})
	}
}

func (s *stall) release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.freed != nil {
		close(s.freed)
		s.freed = nil
	}
}

// pass waits while held; false if the reader ended meanwhile.
func (s *stall) pass(ended <-chan struct{}) bool {
	s.mu.Lock()
	freed := s.freed
	s.mu.Unlock()
	if freed == nil {
		return true
	}
	select {
	case <-freed:
		return true
	case <-ended:
		return false
	}
}

func (s *stall) pipe(dst, src net.Conn) {
	chunks := make(chan []byte, 1<<12)
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		defer close(chunks)
		for {
			b := make([]byte, 32<<10)
			n, err := src.Read(b)
			if n > 0 {
				select {
				case chunks <- b[:n]:
				default: // a full queue: the link is held far past anything a test waits for
				}
			}
			if err != nil {
				return
			}
		}
	}()
	defer func() { _ = dst.Close() }()
	for b := range chunks {
		if !s.pass(ended) {
			return
		}
		if _, err := dst.Write(b); err != nil {
			_ = src.Close()
			return
		}
	}
}
