package wdasim_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/corral-farm/corral/nodes/ios/wdasim"
	"github.com/corral-farm/corral/nodes/sim"
)

// rig is a Server over a phone, driven with raw HTTP as any WebDriver client would.
type rig struct {
	t     *testing.T
	phone *sim.Phone
	srv   *wdasim.Server
	hs    *httptest.Server
}

func newRig(t *testing.T, w, h, scale int, opts ...sim.Option) *rig {
	t.Helper()
	r := &rig{t: t, phone: sim.New("wdasim-test", append([]sim.Option{sim.WithSize(w, h)}, opts...)...)}
	r.srv = wdasim.New(r.phone, scale)
	r.hs = httptest.NewServer(r.srv)
	t.Cleanup(r.hs.Close)
	return r
}

// answer is WebDriverAgent's envelope.
type answer struct {
	Status    int
	Value     json.RawMessage `json:"value"`
	SessionID *string         `json:"sessionId"`
}

// errorCode returns the error code of a failed answer, "" for a success.
func (a answer) errorCode() string {
	var v struct {
		Error string `json:"error"`
	}
	_ = json.Unmarshal(a.Value, &v)
	return v.Error
}

func (r *rig) do(method, path string, body any) answer {
	r.t.Helper()
	var rd io.Reader
	if body != nil {
		b, ok := body.(string)
		if !ok {
			raw, err := json.Marshal(body)
			if err != nil {
				r.t.Fatal(err)
			}
			b = string(raw)
		}
		rd = bytes.NewReader([]byte(b))
	}
	req, err := http.NewRequestWithContext(r.t.Context(), method, r.hs.URL+path, rd)
	if err != nil {
		r.t.Fatal(err)
	}
	resp, err := r.hs.Client().Do(req)
	if err != nil {
		r.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		r.t.Fatal(err)
	}
	a := answer{Status: resp.StatusCode}
	if err := json.Unmarshal(raw, &a); err != nil {
		r.t.Fatalf("%s %s: the answer is not JSON: %v\n%s", method, path, err, raw)
	}
	if a.Value == nil {
		r.t.Fatalf("%s %s: the answer has no value: %s", method, path, raw)
	}
	return a
}

// ok does a request that must succeed.
func (r *rig) ok(method, path string, body any) answer {
	r.t.Helper()
	a := r.do(method, path, body)
	if a.Status != http.StatusOK || a.errorCode() != "" {
		r.t.Fatalf("%s %s: HTTP %d %s", method, path, a.Status, a.Value)
	}
	return a
}

// fails does a request that must fail with status and code.
func (r *rig) fails(method, path string, body any, status int, code string) answer {
	r.t.Helper()
	a := r.do(method, path, body)
	if a.Status != status || a.errorCode() != code {
		r.t.Errorf("%s %s: HTTP %d %s; want %d %q", method, path, a.Status, a.Value, status, code)
	}
	return a
}

// session creates a session and returns its id.
func (r *rig) session() string {
	r.t.Helper()
	a := r.ok("POST", "/session", map[string]any{"capabilities": map[string]any{"alwaysMatch": map[string]any{}}})
	var v struct {
		SessionID string `json:"sessionId"`
	}
	if err := json.Unmarshal(a.Value, &v); err != nil || v.SessionID == "" {
		r.t.Fatalf("POST /session: %s", a.Value)
	}
	return v.SessionID
}

func (r *rig) lastInput() string {
	r.t.Helper()
	log := r.phone.InputLog()
	if len(log) == 0 {
		r.t.Fatal("the phone received no input")
	}
	return log[len(log)-1]
}

func (r *rig) foreground() string {
	r.t.Helper()
	app, err := r.phone.ForegroundApp(r.t.Context())
	if err != nil {
		r.t.Fatal(err)
	}
	return app
}

func str(t *testing.T, v json.RawMessage) string {
	t.Helper()
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		t.Fatalf("value %s is not a string", v)
	}
	return s
}
