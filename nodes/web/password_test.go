package web

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/nodes/android"
	"github.com/corral-farm/corral/nodes/device"
)

// A page opened with a password in its URL (basic auth) loads with it, but no answer, record
// or error of the device shows it: app_launch's message, get_foreground_app, list_packages,
// app_terminate (which takes the URL as shown) and the task records show user:REDACTED@.
func TestURLPasswordsNotShown(t *testing.T) {
	var authed atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if user, pw, ok := r.BasicAuth(); !ok || user != "user" || pw != "secretpw" {
			w.Header().Set("WWW-Authenticate", `Basic realm="test"`)
			http.Error(w, "who are you", http.StatusUnauthorized)
			return
		}
		authed.Store(true)
		w.Write([]byte(`<!doctype html><title>in</title><p>signed in</p>`))
	}))
	t.Cleanup(srv.Close)
	d := startBrowserWith(t, Options{Serial: "web-secret"})
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Platforms: []device.Platform{android.Platform(), Platform()}})
	f.AddDriver("n1", d)
	farmtest.Eventually(t, 30*time.Second, func() bool {
		e, ok := f.Gateway().Client.Device("web-secret")
		return ok && e.State == broker.StateOnline
	}, "web-secret online")
	c := f.Client("agent")
	call := func(tool string, args map[string]any) (string, bool) {
		args["serial"] = "web-secret"
		res := farmtest.Call(t, c, tool, args)
		return farmtest.Text(res), res.IsError
	}
	page := strings.Replace(srv.URL, "http://", "http://user:secretpw@", 1) + "/"
	shown := strings.Replace(srv.URL, "http://", "http://user:REDACTED@", 1) + "/"

	answers := map[string]string{}
	for _, tool := range []string{"app_launch", "get_foreground_app", "list_packages"} {
		text, failed := call(tool, map[string]any{"packageName": page})
		if tool != "app_launch" {
			text, failed = call(tool, map[string]any{})
		}
		if failed {
			t.Fatalf("%s: %s", tool, text)
		}
		answers[tool] = text
	}
	if !authed.Load() {
		t.Error("the server saw no request with the URL's password: the browser must load the page with it")
	}
	text, failed := call("app_terminate", map[string]any{"packageName": shown})
	if failed {
		t.Fatalf("app_terminate of the URL as list_packages shows it: %s", text)
	}
	answers["app_terminate, shown URL"] = text
	if text, failed := call("app_launch", map[string]any{"packageName": page}); failed {
		t.Fatal(text)
	}
	for _, what := range []string{"app_terminate", "app_terminate of a closed tab"} {
		answers[what], _ = call("app_terminate", map[string]any{"packageName": page})
	}
	for tool, text := range answers {
		if strings.Contains(text, "secretpw") || !strings.Contains(text, shown) {
			t.Errorf("%s answered %q: want the URL shown as %s, no password", tool, text, shown)
		}
	}

	var recs []broker.TaskResult
	farmtest.Eventually(t, 30*time.Second, func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		h, err := f.Gateway().Client.TaskHistory(ctx, broker.HistoryQuery{Serial: "web-secret"})
		recs = h.Tasks
		return err == nil && len(recs) >= len(answers)+1
	}, "the task records of web-secret")
	for _, r := range recs {
		b, _ := json.Marshal(r)
		if strings.Contains(string(b), "secretpw") {
			t.Errorf("the record of %s keeps the password: %s", r.Tool, b)
		}
	}
}
