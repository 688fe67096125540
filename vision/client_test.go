package vision_test

import (
	"context"
	"errors"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/micro"

	"github.com/corral-farm/corral/broker/embedded"
	"github.com/corral-farm/corral/vision"
)

// A worker that answered busy and then does not answer before the call's deadline: the
// caller learns that the workers were busy, not only that time ran out.
func TestClientSaysBusyAtTheDeadline(t *testing.T) {
	ns, err := embedded.Start(embedded.Options{Port: -1, StoreDir: t.TempDir()}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ns.Shutdown(); ns.WaitForShutdown() })
	connect := func() *nats.Conn {
		nc, err := nats.Connect(ns.ClientURL())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(nc.Close)
		return nc
	}
	// The worker's side of the wire: busy first, then silence (a request taken by a worker
	// that stalls, or lost).
	var asked atomic.Int32
	worker := connect()
	if _, err := worker.Subscribe(vision.Prefix+"."+vision.EndpointOCR, func(m *nats.Msg) {
		if asked.Add(1) == 1 {
			reply := nats.NewMsg(m.Reply)
			reply.Header.Set(micro.ErrorHeader, "busy: 2 waiting")
			reply.Header.Set(micro.ErrorCodeHeader, vision.CodeBusy)
			_ = m.RespondMsg(reply)
		}
	}); err != nil {
		t.Fatal(err)
	}
	if err := worker.Flush(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Second)
	defer cancel()
	_, err = vision.NewClient(connect(), time.Minute).OCR(ctx, vision.OCRRequest{V: 1})
	var ve *vision.Error
	if !errors.As(err, &ve) || ve.Code != vision.CodeBusy {
		t.Fatalf("a call that met a busy worker and then its deadline: %v, want the busy error", err)
	}
	if asked.Load() < 2 {
		t.Fatalf("asked %d times: the client did not ask again after busy", asked.Load())
	}
}
