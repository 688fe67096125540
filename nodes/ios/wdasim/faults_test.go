package wdasim_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/nodes/ios/wdasim"
)

func TestFaults(t *testing.T) {
	r := newRig(t, 750, 1334, 2)
	get := func(ctx context.Context) (*http.Response, []byte, error) {
		req, _ := http.NewRequestWithContext(ctx, "GET", r.hs.URL+"/status", nil)
		resp, err := r.hs.Client().Do(req)
		if err != nil {
			return nil, nil, err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		return resp, b, err
	}

	r.srv.SetFault(wdasim.FaultGarbage)
	resp, body, err := get(t.Context())
	if err != nil || resp.StatusCode != 200 || json.Valid(body) {
		t.Errorf("garbage: HTTP %v %q %v; want 200 and not JSON", resp, body, err)
	}

	r.srv.SetFault(wdasim.FaultError500)
	a := r.fails("GET", "/status", nil, 500, "unknown error")
	if !strings.Contains(string(a.Value), "injected") {
		t.Errorf("error 500: %s", a.Value)
	}

	r.srv.SetFault(wdasim.FaultHang)
	for _, method := range []string{"GET", "POST"} {
		ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
		start := time.Now()
		req, _ := http.NewRequestWithContext(ctx, method, r.hs.URL+"/session", strings.NewReader(`{"capabilities":{}}`))
		resp, err := r.hs.Client().Do(req)
		cancel()
		if err == nil {
			resp.Body.Close()
		}
		if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 5*time.Second {
			t.Errorf("hang, %s: %v after %s; want the deadline", method, err, time.Since(start))
		}
	}

	r.srv.SetFault(wdasim.FaultNone)
	r.ok("GET", "/status", nil)
	if n := r.srv.Requests(); n != 5 {
		t.Errorf("Requests = %d, want 5: faults count too", n)
	}
	// The hung handlers ended with their requests: the server closes without waiting (Cleanup).
}

// The phone's failures become WebDriverAgent's errors, and a panic a 500, not a dropped
// connection.
func TestPhoneFailures(t *testing.T) {
	r := newRig(t, 750, 1334, 2)
	s := "/session/" + r.session()
	r.phone.FailNext(nil)
	a := r.fails("POST", s+"/wda/tap", map[string]any{"x": 1, "y": 1}, 500, "unknown error")
	if !strings.Contains(string(a.Value), "injected") {
		t.Errorf("failure: %s", a.Value)
	}
	r.phone.PanicNext()
	r.fails("GET", "/wda/activeAppInfo", nil, 500, "unknown error")
	r.ok("GET", "/wda/activeAppInfo", nil)
}
