package embedded_test

import (
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/broker/embedded"
	"github.com/corral-farm/corral/internal/logtest"
)

// A user that answers requests may answer within its ResponseWindow, and not after: the server
// applies the window given (nats-server's default of 2 minutes cut off the answers of longer
// tasks). Nodes and vision workers get broker.ReplyWindow.
func TestAnswersWithinTheResponseWindow(t *testing.T) {
	const window = time.Second // an answer at once comes well within it, even on a loaded machine
	var logs logtest.Buffer
	ns, err := embedded.Start(embedded.Options{Port: -1, StoreDir: t.TempDir(), Users: []embedded.User{
		{Name: "asker", Password: "pw", Permissions: embedded.Permissions{PublishAllow: []string{"work"}, SubscribeAllow: []string{"_INBOX.>"}}},
		{Name: "answerer", Password: "pw", Permissions: embedded.Permissions{PublishAllow: []string{}, SubscribeAllow: []string{"work"},
			AllowResponses: true, ResponseWindow: window}},
	}}, slog.New(slog.NewTextHandler(&logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ns.Shutdown(); ns.WaitForShutdown() })
	connect := func(user string) *nats.Conn {
		nc, err := nats.Connect(ns.ClientURL(), nats.UserInfo(user, "pw"), nats.ErrorHandler(func(*nats.Conn, *nats.Subscription, error) {}))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(nc.Close)
		return nc
	}
	asker, answerer := connect("asker"), connect("answerer")
	if _, err := answerer.Subscribe("work", func(m *nats.Msg) {
		d, _ := time.ParseDuration(string(m.Data))
		time.Sleep(d) // the task's own time: what the window must outlast
		_ = m.Respond([]byte("done after " + string(m.Data)))
	}); err != nil {
		t.Fatal(err)
	}
	if err := answerer.Flush(); err != nil {
		t.Fatal(err)
	}
	if m, err := asker.Request("work", []byte("0s"), 10*time.Second); err != nil || string(m.Data) != "done after 0s" {
		t.Fatalf("an answer at once: %v %v", m, err)
	}
	if _, err := asker.Request("work", []byte((3 * window).String()), 3*window+2*time.Second); err == nil {
		t.Fatalf("an answer %v after its request, beyond the window of %v, was let through", 3*window, window)
	}
	if !strings.Contains(logs.String(), "Publish Violation") {
		t.Errorf("the late answer was not refused by the server's permissions; log:\n%s", logs.String())
	}

	for _, r := range []broker.Role{broker.RoleNode, broker.RoleVision} {
		p, err := broker.PermissionsFor(r, "n1")
		if err != nil {
			t.Fatal(err)
		}
		if !p.AllowResponses || p.ResponseWindow != broker.ReplyWindow {
			t.Errorf("%s answers with %v within %v, want within broker.ReplyWindow (%v)", r, p.AllowResponses, p.ResponseWindow, broker.ReplyWindow)
		}
	}
}
