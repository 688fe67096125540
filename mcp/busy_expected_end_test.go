package mcp_test

import (
	"encoding/json"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
)

// A device busy with a 15 s sleep run without a lease is said to be busy for about as long as
// the sleep has left, by the gateway's busy refusal, the node's words (a stale lease's refusal
// says who has the device now) and the console alike; not until the sleep's 61-minute default
// deadline, as all three said. A sleep whose caller's timeout_ms ends it first is said to end
// by that deadline.
func TestBusyWithAShortTaskSaysWhenItEnds(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Quiet: true})
	serial := f.Devices()[0].Serial
	alice, bob := f.Client("alice"), f.Client("bob")
	jar, _ := cookiejar.New(nil)
	browser := &http.Client{Jar: jar}
	gw := f.Gateway().HTTP.URL
	_, page := do(t, browser, http.MethodGet, gw+"/devices/"+url.PathEscape(serial), "", nil)
	csrf := csrfOf(t, page)

	sleep := farmtest.Go(t, alice, "sleep", map[string]any{"serial": serial, "seconds": 15})
	first := busyWith(t, f, serial, "")
	about := regexp.MustCompile(`for about (\d+)s more|in about (\d+)s`)
	seconds := func(what, text string) {
		t.Helper()
		m := about.FindStringSubmatch(text)
		if m == nil {
			t.Errorf("%s: %q does not say how long the 15 s sleep has left", what, text)
			return
		}
		if n := atoi(m[1] + m[2]); n < 1 || n > 15 {
			t.Errorf("%s: %q: %d s left of a 15 s sleep", what, text, n)
		}
		if strings.Contains(text, "at the latest") || strings.Contains(text, "1h") {
			t.Errorf("%s: %q still names the sleep's default deadline", what, text)
		}
	}
	seconds("bob's busy refusal", farmtest.Text(farmtest.Call(t, bob, "home", map[string]any{"serial": serial})))
	seconds("the node's words after a stale lease", farmtest.Text(farmtest.Call(t, bob, "home",
		map[string]any{"serial": serial, "lease": "not-a-lease-of-this-device"})))
	seconds("the console", consoleBusy(t, browser, gw, serial, csrf))
	farmtest.MustCall(t, f.Client("carol"), "abort_task", map[string]any{"serial": serial})
	<-sleep

	// timeout_ms ends the sleep before its length: its deadline is what is known.
	sleep = farmtest.Go(t, alice, "sleep", map[string]any{"serial": serial, "seconds": 600, "timeout_ms": 20000})
	busyWith(t, f, serial, first)
	deadline := regexp.MustCompile(`by its deadline \S+ \(in (\d+)s\) at the latest`)
	text := farmtest.Text(farmtest.Call(t, bob, "home", map[string]any{"serial": serial}))
	if m := deadline.FindStringSubmatch(text); m == nil || atoi(m[1]) < 1 || atoi(m[1]) > 20 {
		t.Errorf("bob's busy refusal while a 600 s sleep runs under timeout_ms 20000: %q; want its 20 s deadline", text)
	}
	if c := consoleBusy(t, browser, gw, serial, csrf); !strings.Contains(c, "at the latest") || strings.Contains(c, "about") {
		t.Errorf("the console while a 600 s sleep runs under timeout_ms 20000: %q; want its deadline", c)
	}
	farmtest.MustCall(t, f.Client("carol"), "abort_task", map[string]any{"serial": serial})
	<-sleep
}

// busyWith waits until the registry shows serial busy with a sleep other than the task before,
// and returns its id.
func busyWith(t *testing.T, f *farmtest.Farm, serial, before string) (id string) {
	t.Helper()
	farmtest.Eventually(t, 20*time.Second, func() bool {
		d, _ := f.Gateway().Client.Device(serial)
		if d.State != broker.StateBusy || d.Task == nil || d.Task.Tool != "sleep" || d.Task.ID == before {
			return false
		}
		id = d.Task.ID
		return true
	}, serial+" busy with alice's sleep")
	return id
}

// consoleBusy has the console home serial and returns its busy message.
func consoleBusy(t *testing.T, browser *http.Client, gw, serial, csrf string) string {
	t.Helper()
	resp, body := do(t, browser, http.MethodPost, gw+"/console/devices/"+url.PathEscape(serial)+"/actions/home", "",
		map[string]string{"X-Corral-CSRF": csrf, "Content-Type": "application/json"})
	var a struct {
		Message string          `json:"message"`
		Busy    json.RawMessage `json:"busy"`
	}
	if err := json.Unmarshal([]byte(body), &a); err != nil || resp.StatusCode != http.StatusConflict || a.Busy == nil {
		t.Fatalf("console home on busy %s: %d %s (%v); want 409 with a busy object", serial, resp.StatusCode, body, err)
	}
	return a.Message
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}
