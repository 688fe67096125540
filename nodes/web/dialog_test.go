package web

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/nodes/tools"
)

// A page that alerts as it loads stalled the tab until the dialog was answered, and nothing
// answered it: app_launch ran to its deadline (context canceled), and so did every later
// screenshot, get_source and tap, while the device said online. Now each tab answers its
// dialogs as they open: app_launch succeeds and says what the dialog said, and a screenshot
// follows; a confirm a tap opens is answered Cancel and reported by close_popups.
func TestDialogsDoNotWedgeTheDevice(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte(`<!doctype html><body><script>alert("hello from the page")</script>` +
			`<button id=b style="width:200px;height:100px" onclick="document.title = confirm('sure?') ? 'yes' : 'no'">go</button></body>`))
	}))
	defer srv.Close()
	d := startBrowser(t, "phone")
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	run := func(name, args string, limit time.Duration) (tools.Output, error) {
		c, cancel := context.WithTimeout(ctx, limit)
		defer cancel()
		return tools.DefaultOps()[name].Run(c, &tools.Task{Driver: d, Args: []byte(args)})
	}
	out, err := run("app_launch", `{"packageName":"`+srv.URL+`/"}`, 30*time.Second)
	if err != nil {
		t.Fatalf("app_launch of a page that alerts: %v", err)
	}
	if msg := out.Data.(tools.MessageResult).Message; !strings.Contains(msg, `the page's alert dialog said: "hello from the page" (dismissed with OK)`) {
		t.Errorf("app_launch said %q; want what the dialog said", msg)
	}
	sctx, scancel := context.WithTimeout(ctx, 20*time.Second)
	defer scancel()
	if _, err := d.Screenshot(sctx); err != nil {
		t.Fatalf("a screenshot after the alert: %v", err)
	}
	if _, err := run("tap_by_selector", `{"selector":"#b"}`, 30*time.Second); err != nil {
		t.Fatalf("tapping the button that asks confirm: %v", err)
	}
	out, err = run("close_popups", `{}`, 30*time.Second)
	if err != nil {
		t.Fatalf("close_popups after a confirm: %v", err)
	}
	if msg := out.Data.(tools.ClosePopupsResult).Message; !strings.Contains(msg, `the page's confirm dialog said: "sure?" (dismissed with Cancel)`) {
		t.Errorf("close_popups said %q; want the confirm it answered", msg)
	}
}
