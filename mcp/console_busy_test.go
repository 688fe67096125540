package mcp_test

import (
	"encoding/json"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
)

// The console's busy answer holds for a device whose serial has a colon, as an adb TCP phone's
// and every --sim-android phone's has ("127.0.0.1:40123"): a tap on it while an agent holds it
// is refused with the console's own busy object and wording, not the MCP client's text; so is
// an Acquire, whose refusal acquire_device words inside its own ("no device matching …").
func TestConsoleBusyAnswerForASerialWithAColon(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Quiet: true})
	_, devs := f.StartAndroid("n1", 1)
	serial := devs[0].Serial()
	if !strings.Contains(serial, ":") {
		t.Fatalf("the simulated Android device's serial %q has no colon", serial)
	}
	farmtest.Eventually(t, 10*time.Second, func() bool {
		d, ok := f.Gateway().Client.Device(serial)
		return ok && d.State == broker.StateOnline
	}, "%s online", serial)
	agent := f.Client("agent")
	farmtest.MustCall(t, agent, "acquire_device", map[string]any{"serial": serial})

	jar, _ := cookiejar.New(nil)
	browser := &http.Client{Jar: jar}
	gw := f.Gateway().HTTP.URL
	_, page := do(t, browser, http.MethodGet, gw+"/devices/"+url.PathEscape(serial), "", nil)
	for action, args := range map[string]string{"tap": `{"x":0.5,"y":0.5}`, "acquire": ""} {
		busyAnswer(t, browser, gw, serial, action, args, csrfOf(t, page))
	}
}

// busyAnswer has the console do action on serial, which the agent holds, and checks it is
// refused with the console's busy object and wording.
func busyAnswer(t *testing.T, browser *http.Client, gw, serial, action, args, csrf string) {
	t.Helper()
	resp, body := do(t, browser, http.MethodPost, gw+"/console/devices/"+url.PathEscape(serial)+"/actions/"+action, args,
		map[string]string{"X-Corral-CSRF": csrf, "Content-Type": "application/json"})
	var a struct {
		OK      bool   `json:"ok"`
		Message string `json:"message"`
		Busy    *struct {
			Holder string    `json:"holder"`
			Until  time.Time `json:"until"`
		} `json:"busy"`
	}
	if err := json.Unmarshal([]byte(body), &a); err != nil {
		t.Fatalf("%s: %d %s: %v", action, resp.StatusCode, body, err)
	}
	if resp.StatusCode != http.StatusConflict || a.OK || a.Busy == nil {
		t.Fatalf("%s on %s held by the agent: %d %s; want 409 with a busy object", action, serial, resp.StatusCode, body)
	}
	if !strings.Contains(a.Busy.Holder, "agent") || a.Busy.Until.IsZero() {
		t.Errorf("%s: busy: holder %q until %v; want the agent's lease", action, a.Busy.Holder, a.Busy.Until)
	}
	if want := serial + " is busy: held by "; !strings.HasPrefix(a.Message, want) || strings.Contains(a.Message, "wait_seconds") {
		t.Errorf("%s: message %q; want the console's wording, %q…", action, a.Message, want)
	}
}
