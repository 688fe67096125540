package actors_test

import (
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/internal/farmtest"
)

// QA: a timeout_ms over the tool's cap, from a caller waiting behind another's lease, was
// checked only when the caller's turn came: it waited all of wait_seconds (holding a place in
// the queue), was answered wait_expired and never told its timeout was bad. Bad input is
// refused at once and queues nothing.
func TestTimeoutOverTheCapIsRefusedBeforeItWaits(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Quiet: true})
	serial := f.Devices()[0].Serial
	farmtest.MustCall(t, f.Client("holder"), "acquire_device", map[string]any{"serial": serial})

	const wait = 10 * time.Second
	start := time.Now()
	answer := farmtest.Go(t, f.Client("waiter"), "tap_xy", map[string]any{"serial": serial, "x": 0.5, "y": 0.5,
		"timeout_ms": 600000, "wait_seconds": int(wait.Seconds())})
	var res farmtest.Answer
	select {
	case res = <-answer:
	case <-time.After(2 * wait):
		t.Fatal("the call was never answered")
	}
	took := time.Since(start)
	got := res.Get(t)
	text := farmtest.Text(got)
	if !got.IsError || !strings.Contains(text, "timeout_ms 600000 is above tap_xy's cap") {
		t.Errorf("a timeout_ms over the cap, behind a lease: %s; want refused for its timeout_ms", text)
	}
	if took > wait/4 {
		t.Errorf("answered after %v of its %v wait; want at once", took.Round(time.Millisecond), wait)
	}
	if e, _ := f.Gateway().Client.Device(serial); e.Queued != 0 || len(e.Queue) != 0 {
		t.Errorf("the refused call left %d waiting (%v)", e.Queued, e.Queue)
	}
}
