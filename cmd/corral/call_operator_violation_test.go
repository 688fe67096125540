package main

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
)

// corral call with the operator's NATS context is refused (calls need the admin role), and
// the NATS server logs that one refusal: it also logged ERROR `Publish Violation - Subject
// "$JS.API.CONSUMER.DELETE.KV_corral_devices…"` in about half the runs, the CLI's registry
// watch deleting, as the refusal ended it, a consumer the operator may not delete.
func TestRefusedCallAsOperatorDeletesNoConsumer(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Quiet: true, Auth: true})
	f.StartNode("n1", 1)
	f.WaitDevices(1, "online")
	errs := &serverErrors{}
	f.NATS.SetLoggerV2(errs, false, false, false)
	clients := f.NATS.NumClients()
	for range 5 { // one run showed it about every other time
		var code int
		out := captureOutput(t, func() {
			code = realMain([]string{"call", "--nats-context", f.Context(broker.UserName(broker.RoleOperator, "")), "--timeout", "20s",
				"get_screen_size", `{}`})
		})
		if code != 1 || !strings.Contains(out, "corral call runs as the admin role") {
			t.Fatalf("corral call as the operator: exit %d, %s", code, out)
		}
		// The server reads what the CLI sent before its connection's close: once it has
		// seen the close, it has logged every violation of the run.
		for deadline := time.Now().Add(20 * time.Second); f.NATS.NumClients() > clients; time.Sleep(5 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatal("the CLI's connection is still open")
			}
		}
	}
	for _, l := range errs.all() {
		if strings.Contains(l, "CONSUMER.DELETE") {
			t.Error(l)
		}
	}
}

// serverErrors keeps the errors a NATS server logs.
type serverErrors struct {
	mu    sync.Mutex
	lines []string
}

func (s *serverErrors) Errorf(format string, a ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lines = append(s.lines, fmt.Sprintf(format, a...))
}

func (s *serverErrors) all() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.lines...)
}

func (*serverErrors) Noticef(string, ...any) {}
func (*serverErrors) Warnf(string, ...any)   {}
func (*serverErrors) Fatalf(string, ...any)  {}
func (*serverErrors) Debugf(string, ...any)  {}
func (*serverErrors) Tracef(string, ...any)  {}
