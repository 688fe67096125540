package console

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/corral-farm/corral/broker"
)

// fakeFarm is a registry and the nodes' leases, as a test sets them.
type fakeFarm struct {
	mu      sync.Mutex
	devices []broker.DeviceEntry
	leases  []broker.Lease
	err     error
	calls   int
}

func (f *fakeFarm) Devices() []broker.DeviceEntry {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.devices)
}

func (f *fakeFarm) Device(serial string) (broker.DeviceEntry, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, d := range f.devices {
		if d.Serial == serial {
			return d, true
		}
	}
	return broker.DeviceEntry{}, false
}

func (f *fakeFarm) Leases(context.Context) ([]broker.Lease, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	if f.err != nil {
		return nil, f.err
	}
	return slices.Clone(f.leases), nil
}

func (f *fakeFarm) set(serial string, change func(*broker.DeviceEntry)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i := range f.devices {
		if f.devices[i].Serial == serial {
			change(&f.devices[i])
		}
	}
}

// fakeHistory answers task history from a list.
type fakeHistory struct{ tasks []broker.TaskResult }

func (h *fakeHistory) TaskHistory(_ context.Context, q broker.HistoryQuery) (broker.History, error) {
	var out broker.History
	for _, r := range h.tasks {
		if q.Serial == "" || r.Serial == q.Serial {
			out.Tasks = append(out.Tasks, r)
		}
	}
	return out, nil
}

// fakeScreens records watches and lets a test publish frames to the subscribers.
type fakeScreens struct {
	mu         sync.Mutex
	subs       map[string]func(broker.Frame)
	subscribed int
	watches    []broker.WatchRequest
}

func newFakeScreens() *fakeScreens { return &fakeScreens{subs: map[string]func(broker.Frame){}} }

func (s *fakeScreens) Watch(_ context.Context, req broker.WatchRequest) (broker.WatchAnswer, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.watches = append(s.watches, req)
	return broker.WatchAnswer{V: 1, Subject: broker.FramesSubject("n1", req.Serial), Watchers: 1}, nil
}

func (s *fakeScreens) SubscribeFrames(serial string, fn func(broker.Frame)) (string, func(), error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.subs[serial]; ok {
		return "", nil, errors.New("subscribed twice")
	}
	s.subs[serial] = fn
	s.subscribed++
	return "n1", func() {
		s.mu.Lock()
		delete(s.subs, serial)
		s.mu.Unlock()
	}, nil
}

// publish hands a frame to serial's subscriber; false if there is none.
func (s *fakeScreens) publish(f broker.Frame) bool {
	s.mu.Lock()
	fn, ok := s.subs[f.Serial]
	s.mu.Unlock()
	if ok {
		fn(f)
	}
	return ok
}

func (s *fakeScreens) lastWatch() (broker.WatchRequest, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.watches) == 0 {
		return broker.WatchRequest{}, 0
	}
	return s.watches[len(s.watches)-1], len(s.watches)
}

// Tokens of the test console.
const (
	simToken = "sim-token-0123456789abcdef"
	labToken = "lab-token-0123456789abcdef"
)

// testFarm has three devices: d1 (sim, android, n1, leased by alice), d2 (lab, ios, n2) and
// d3 (sim, android, n2, busy with a task of bob's), and the leases of d1 (current) and d3
// (of an older epoch).
func testFarm() *fakeFarm {
	alice := broker.Holder{Principal: "alice", Client: "agent"}
	bob := broker.Holder{Principal: "bob"}
	now := time.Now()
	return &fakeFarm{
		devices: []broker.DeviceEntry{
			{Serial: "d1", Platform: "android", Model: "Pixel", Node: "n1", State: broker.StateLeased, Tags: []string{"sim"}, Holder: alice.String(), Epoch: 3},
			{Serial: "d2", Platform: "ios", Node: "n2", State: broker.StateOnline, Tags: []string{"lab"}, Epoch: 1},
			{Serial: "d3", Platform: "android", Node: "n2", State: broker.StateBusy, Tags: []string{"sim"}, Holder: bob.String(), Epoch: 2,
				Task: &broker.RunningTask{ID: "t_1", Tool: "tap_xy", Holder: &bob, Started: now, Deadline: now.Add(time.Minute), Implicit: true}},
		},
		leases: []broker.Lease{
			{Serial: "d1", Node: "n1", Holder: alice, Epoch: 3, ExpiresAt: now.Add(5 * time.Minute), MaxUntil: now.Add(time.Hour), QueueLen: 2},
			{Serial: "d3", Node: "n2", Holder: alice, Epoch: 1, ExpiresAt: now.Add(time.Minute)},
		},
	}
}

// authenticate knows two tokens: sim's principal may use sim devices only, read-only; lab's
// may use lab devices and act.
func authenticate(token string) (Viewer, bool) {
	switch token {
	case simToken:
		return named("simmer")
	case labToken:
		return named("labber")
	}
	return Viewer{}, false
}

// named is the viewer of a principal's name, as authenticate's tokens make them.
func named(name string) (Viewer, bool) {
	switch name {
	case "simmer":
		return Viewer{Name: "simmer", Tags: []string{"sim"}, MayUse: func(tags []string) bool { return slices.Contains(tags, "sim") },
			Credential: []byte("hash of " + simToken)}, true
	case "labber":
		return Viewer{Name: "labber", Tags: []string{"lab"}, MayUse: func(tags []string) bool { return slices.Contains(tags, "lab") }, MayAct: true,
			Credential: []byte("hash of " + labToken)}, true
	}
	return Viewer{}, false
}

// testConsole serves a console with auth over farm; denied collects the refusals' reasons.
func testConsole(t *testing.T, farm *fakeFarm, screens *fakeScreens) (*httptest.Server, *[]string) {
	t.Helper()
	var mu sync.Mutex
	denied := &[]string{}
	cfg := Config{Farm: farm, History: &fakeHistory{}, Authenticate: authenticate, Named: named, Denied: func(_ *http.Request, r string) {
		mu.Lock()
		*denied = append(*denied, r)
		mu.Unlock()
	}}
	if screens != nil {
		cfg.Screens = screens
	}
	srv := httptest.NewServer(New(cfg))
	t.Cleanup(srv.Close)
	return srv, denied
}

// get fetches a path with a bearer token ("" for none), without following redirects.
func get(t *testing.T, srv *httptest.Server, path, token string, header ...string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, srv.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	return do(t, req)
}

func do(t *testing.T, req *http.Request) (*http.Response, string) {
	t.Helper()
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b strings.Builder
	buf := make([]byte, 32<<10)
	for {
		n, err := resp.Body.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			break
		}
	}
	return resp, b.String()
}
