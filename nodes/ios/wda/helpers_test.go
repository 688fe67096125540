package wda_test

import (
	"context"
	"encoding/xml"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/corral-farm/corral/nodes/ios/wda"
	"github.com/corral-farm/corral/nodes/ios/wdasim"
	"github.com/corral-farm/corral/nodes/sim"
)

// farm is a client of a simulated WebDriverAgent over loopback HTTP. The server behind the
// listener can be replaced, as when WebDriverAgent restarts on the phone.
type farm struct {
	phone *sim.Phone
	scale int
	srv   atomic.Pointer[wdasim.Server]
	hs    *httptest.Server
	c     *wda.Client
}

func newFarm(t testing.TB, w, h, scale int, opts ...sim.Option) *farm {
	t.Helper()
	f := &farm{phone: sim.New("wda-test", append([]sim.Option{sim.WithSize(w, h)}, opts...)...), scale: scale}
	f.srv.Store(wdasim.New(f.phone, scale))
	f.hs = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.srv.Load().ServeHTTP(w, r)
	}))
	t.Cleanup(f.hs.Close)
	f.c = wda.New("http://wda", dialTo(f.hs.Listener.Addr().String()))
	return f
}

// dialTo is an http.Client whose every connection goes to addr, whatever the URL's host: as in
// production, where the transport dials the phone through usbmuxd.
func dialTo(addr string) *http.Client {
	var d net.Dialer
	return &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) { return d.DialContext(ctx, "tcp", addr) },
	}}
}

// restart replaces WebDriverAgent with a new one over the same phone: it has no session.
func (f *farm) restart() *wdasim.Server {
	s := wdasim.New(f.phone, f.scale)
	f.srv.Store(s)
	return s
}

func ctxFor(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// lastInput returns the phone's last input log line.
func (f *farm) lastInput(t *testing.T) string {
	t.Helper()
	log := f.phone.InputLog()
	if len(log) == 0 {
		t.Fatal("the phone received no input")
	}
	return log[len(log)-1]
}

func (f *farm) foreground(t *testing.T) string {
	t.Helper()
	app, err := f.phone.ForegroundApp(ctxFor(t))
	if err != nil {
		t.Fatal(err)
	}
	return app
}

// element is one element of an XCUITest source.
type element struct {
	Type  string
	Attrs map[string]string
}

func (e element) num(t *testing.T, k string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(e.Attrs[k], 64)
	if err != nil {
		t.Fatalf("%s %v: attribute %s: %v", e.Type, e.Attrs, k, err)
	}
	return v
}

// centre is the middle of the element's frame, in points.
func (e element) centre(t *testing.T) (float64, float64) {
	return e.num(t, "x") + e.num(t, "width")/2, e.num(t, "y") + e.num(t, "height")/2
}

func parseSource(t *testing.T, src string) []element {
	t.Helper()
	d := xml.NewDecoder(strings.NewReader(src))
	var out []element
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("source is not XML: %v\n%s", err, src)
		}
		if se, ok := tok.(xml.StartElement); ok {
			e := element{Type: se.Name.Local, Attrs: map[string]string{}}
			for _, a := range se.Attr {
				e.Attrs[a.Name.Local] = a.Value
			}
			out = append(out, e)
		}
	}
}

// find returns the first element of type typ whose attribute k is v.
func find(t *testing.T, src, typ, k, v string) element {
	t.Helper()
	for _, e := range parseSource(t, src) {
		if e.Type == typ && e.Attrs[k] == v {
			return e
		}
	}
	t.Fatalf("no %s with %s=%q in the source:\n%s", typ, k, v, src)
	return element{}
}

// waitFor polls cond until it holds or the deadline passes.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
