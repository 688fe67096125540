package wdasim

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/corral-farm/corral/nodes/sim"
)

// Action chains come from any client: nothing may panic, refusals are WebDriverAgent errors,
// and what is accepted is bounded.
func FuzzActions(f *testing.F) {
	for _, s := range []string{
		`{"actions":[{"type":"pointer","id":"f","parameters":{"pointerType":"touch"},"actions":[{"type":"pointerMove","duration":0,"x":10,"y":20,"origin":"viewport"},{"type":"pointerDown","button":0},{"type":"pause","duration":100},{"type":"pointerMove","duration":300,"x":10,"y":200},{"type":"pointerUp","button":0}]}]}`,
		`{"actions":[{"type":"none","actions":[{"type":"pause","duration":5}]},{"type":"pointer","actions":[{"type":"pointerDown"},{"type":"pointerMove","x":1,"y":1,"origin":"pointer"}]}]}`,
		`{"actions":[{"type":"key","actions":[]}]}`, `{"actions":[]}`, `{}`, `[]`, ``,
		`{"actions":[{"type":"pointer","actions":[{"type":"pause","duration":-1}]}]}`,
		`{"actions":[{"type":"pointer","actions":[{"type":"pointerDown"},{"type":"pause","duration":-1},{"type":"pointerUp"}]}]}`,
		`{"actions":[{"type":"pointer","actions":[{"type":"pointerMove","x":1e308,"y":1,"origin":{"element":"x"}}]}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		gs, err := parseActions(body)
		var we *wdaError
		if err != nil && !errors.As(err, &we) {
			t.Fatalf("an error that is not WebDriverAgent's: %v", err)
		}
		if len(gs) > maxSteps {
			t.Fatalf("%d presses from one chain", len(gs))
		}
		for _, g := range gs {
			if g.hold < 0 || g.move < 0 {
				t.Fatalf("negative durations %+v", g)
			}
		}
	})
}

// Any request gets WebDriverAgent's envelope (or /health's text), and the server goes on.
func FuzzServe(f *testing.F) {
	f.Add("GET", "/status", []byte(nil))
	f.Add("POST", "/session", []byte(`{"capabilities":{"alwaysMatch":{"bundleId":"com.corral.notes"}}}`))
	f.Add("POST", "/session/X/wda/tap", []byte(`{"x":1,"y":2}`))
	f.Add("GET", "/source?format=xml", []byte(nil))
	f.Add("POST", "/wda/homescreen", []byte(`{`))
	f.Add("DELETE", "/session//", []byte(nil))
	phone := sim.New("fuzz", sim.WithSize(320, 480))
	s := New(phone, 1)
	f.Fuzz(func(t *testing.T, method, path string, body []byte) {
		// A gesture takes its time (up to an hour): the client gives up first, as one would.
		ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
		defer cancel()
		req, err := http.NewRequestWithContext(ctx, method, "http://wda/", bytes.NewReader(body))
		if err != nil {
			return
		}
		req.URL.Path = path
		// Every request goes through the session the server has, or none.
		if sid := s.activeSession(); sid != "" && len(path) > 4 && path[1]%2 == 0 {
			req.URL.Path = "/session/" + sid + path
		}
		w := httptest.NewRecorder()
		s.ServeHTTP(w, req)
		if req.URL.Path == "/health" && method == "GET" {
			return
		}
		var env struct {
			Value     json.RawMessage `json:"value"`
			SessionID json.RawMessage `json:"sessionId"`
		}
		if err := json.Unmarshal(w.Body.Bytes(), &env); err != nil || env.Value == nil || env.SessionID == nil {
			t.Fatalf("%s %s: HTTP %d %q is not WebDriverAgent's envelope", method, req.URL.Path, w.Code, w.Body.Bytes())
		}
		if w.Code != 200 && w.Code != 400 && w.Code != 404 && w.Code != 408 && w.Code != 500 {
			t.Fatalf("%s %s: HTTP %d", method, req.URL.Path, w.Code)
		}
	})
}

func (s *Server) activeSession() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sid
}
