package wda_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"image"
	"image/png"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/corral-farm/corral/nodes/ios/wda"
	"github.com/corral-farm/corral/nodes/ios/wdasim"
)

func TestFaultGarbage(t *testing.T) {
	f := newFarm(t, 750, 1334, 2)
	f.srv.Load().SetFault(wdasim.FaultGarbage)
	ctx := ctxFor(t)
	_, err := f.c.Status(ctx)
	wantBad(t, err, "GET /status")
	_, err = f.c.Screenshot(ctx)
	wantBad(t, err, "GET /screenshot")
	wantBad(t, f.c.Tap(ctx, 1, 1), "POST /session") // the session cannot be created
}

func wantBad(t *testing.T, err error, route string) {
	t.Helper()
	if !errors.Is(err, wda.ErrBadAnswer) || !strings.Contains(err.Error(), route) {
		t.Errorf("got %v; want a bad answer naming %s", err, route)
	}
}

// A WebDriverAgent that never answers: the call returns when its ctx ends, also while it
// creates a session, and a call waiting for that creation returns at its own deadline.
func TestFaultHangReturnsAtTheDeadline(t *testing.T) {
	f := newFarm(t, 750, 1334, 2)
	f.srv.Load().SetFault(wdasim.FaultHang)
	for name, call := range map[string]func(context.Context) error{
		"screenshot": func(ctx context.Context) error { _, err := f.c.Screenshot(ctx); return err },
		"tap":        func(ctx context.Context) error { return f.c.Tap(ctx, 1, 1) },
		"status":     func(ctx context.Context) error { _, err := f.c.Status(ctx); return err },
	} {
		t.Run(name, func(t *testing.T) {
			const deadline = 200 * time.Millisecond
			done := make(chan error, 2)
			start := time.Now()
			for range 2 {
				go func() {
					ctx, cancel := context.WithTimeout(t.Context(), deadline)
					defer cancel()
					done <- call(ctx)
				}()
			}
			for range 2 {
				select {
				case err := <-done:
					if !errors.Is(err, context.DeadlineExceeded) {
						t.Errorf("got %v, want the deadline", err)
					}
				case <-time.After(10 * time.Second):
					t.Fatal("the call did not return after its deadline")
				}
			}
			if took := time.Since(start); took > 5*time.Second {
				t.Errorf("the calls took %s for a %s deadline", took, deadline)
			}
		})
	}
}

func TestFaultError500(t *testing.T) {
	f := newFarm(t, 750, 1334, 2)
	f.srv.Load().SetFault(wdasim.FaultError500)
	_, err := f.c.Status(ctxFor(t))
	var we *wda.Error
	if !errors.As(err, &we) || we.HTTPStatus != 500 || we.Code != "unknown error" || !strings.Contains(err.Error(), "GET /status") {
		t.Errorf("got %v; want WebDriverAgent's 500 naming the route", err)
	}
	f.srv.Load().SetFault(wdasim.FaultNone)
	if _, err := f.c.Status(ctxFor(t)); err != nil {
		t.Errorf("after the fault is cleared: %v", err)
	}
}

// A connection closed with no answer is a clear error naming the route.
func TestClosedConnection(t *testing.T) {
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, _, err := http.NewResponseController(w).Hijack()
		if err == nil {
			conn.Close()
		}
	}))
	t.Cleanup(hs.Close)
	c := wda.New("http://wda", dialTo(hs.Listener.Addr().String()))
	_, err := c.Screenshot(ctxFor(t))
	if err == nil || !strings.Contains(err.Error(), "GET /screenshot") || !strings.Contains(err.Error(), "WebDriverAgent running") {
		t.Errorf("got %v; want a failure naming the route, with a hint", err)
	}
}

// hostile serves one canned answer to every request.
func hostile(t *testing.T, status int, body string) *wda.Client {
	t.Helper()
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
	}))
	t.Cleanup(hs.Close)
	return wda.New("http://wda/", dialTo(hs.Listener.Addr().String()))
}

func TestHostileAnswers(t *testing.T) {
	const sid = `{"value":{"sessionId":"S1"},"sessionId":"S1"}`
	notPNG := base64.StdEncoding.EncodeToString([]byte("\xff\xd8\xff\xe0 a JPEG, not a PNG"))
	tinyPNG := "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
	hugePNG := base64.StdEncoding.EncodeToString(pngClaiming(32768, 32768))
	cases := []struct {
		name, route string
		status      int
		body        string
		call        func(context.Context, *wda.Client) error
		code        string // a WebDriverAgent error's code; "" for a bad answer
		says        string // what the error must say, if anything
	}{
		{"200 with an error value", "GET /status", 200, `{"value":{"error":"unknown error","message":"boom"},"sessionId":null}`, status, "unknown error", ""},
		{"JSONWP error status", "GET /status", 200, `{"status":13,"value":"boom","sessionId":null}`, status, "unknown error", ""},
		{"truncated JSON", "GET /status", 200, `{"value":{"ready":tr`, status, "", ""},
		{"empty body", "GET /status", 200, ``, status, "", ""},
		{"not an object", "GET /status", 200, `["value"]`, status, "", ""},
		{"no value", "GET /status", 200, `{"sessionId":null}`, status, "", ""},
		{"HTML 502", "GET /status", 502, `<html>Bad Gateway</html>`, status, "", ""},
		{"404 without WDA error", "GET /status", 404, `{"value":{"ready":true,"state":"success"}}`, status, "", ""},
		{"ready is a string", "GET /status", 200, `{"value":{"ready":"yes","state":"success"}}`, status, "", ""},
		{"status is null", "GET /status", 200, `{"value":null}`, status, "", ""},
		{"sessionId is a number", "GET /status", 200, `{"value":{"state":"success"},"sessionId":7}`, status, "", ""},
		{"sessionId with a slash", "POST /session", 200, `{"value":{"sessionId":"../x"}}`, tap, "", ""},
		{"session without id", "POST /session", 200, `{"value":{},"sessionId":null}`, tap, "", ""},
		{"screenshot is a number", "GET /screenshot", 200, `{"value":42}`, shot, "", ""},
		{"screenshot not base64", "GET /screenshot", 200, `{"value":"%%%%"}`, shot, "", ""},
		{"screenshot not a PNG", "GET /screenshot", 200, `{"value":"` + notPNG + `"}`, shot, "", "not a PNG"},
		{"screenshot too large", "GET /screenshot", 200, `{"value":"` + hugePNG + `"}`, shot, "", "32768x32768"},
		{"source not XML", "GET /source", 200, `{"value":"<XCUIElementTypeApplication><a></b>"}`, source, "", ""},
		{"source not XCUITest", "GET /source", 200, `{"value":"<hierarchy/>"}`, source, "", ""},
		{"source two roots", "GET /source", 200, `{"value":"<XCUIElementTypeOther/><XCUIElementTypeOther/>"}`, source, "", ""},
		{"source truncated", "GET /source", 200, `{"value":"<XCUIElementTypeApplication><XCUIElementTypeButton>"}`, source, "", ""},
		{"source too deep", "GET /source", 200, `{"value":"` + strings.Repeat("<XCUIElementTypeOther>", 600) + strings.Repeat("</XCUIElementTypeOther>", 600) + `"}`, source, "", "deeper"},
		{"window size negative", "GET /session/:sid/window/size", 200, sid, size, "", ""},
		{"locked is a string", "GET /wda/locked", 200, `{"value":"true"}`, locked, "", ""},
		{"app without bundle", "GET /wda/activeAppInfo", 200, `{"value":{"pid":1}}`, app, "", ""},
		{"pid fractional", "GET /wda/activeAppInfo", 200, `{"value":{"bundleId":"a","pid":1.5}}`, app, "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call(ctxFor(t), hostile(t, tc.status, tc.body))
			if err == nil || !strings.Contains(err.Error(), tc.route) {
				t.Fatalf("got %v; want an error naming %s", err, tc.route)
			}
			var we *wda.Error
			if tc.code == "" && !errors.Is(err, wda.ErrBadAnswer) {
				t.Errorf("got %v; want a bad answer", err)
			}
			if tc.code != "" && (!errors.As(err, &we) || we.Code != tc.code) {
				t.Errorf("got %v; want WebDriverAgent's %q", err, tc.code)
			}
			if !strings.Contains(err.Error(), tc.says) {
				t.Errorf("got %v; want it to say %q", err, tc.says)
			}
		})
	}
	// Sound answers decode: the table's failures are not the decoders refusing everything.
	if _, err := shotOf(ctxFor(t), hostile(t, 200, `{"value":"`+tinyPNG[:40]+`\r\n`+tinyPNG[40:]+`"}`)); err != nil {
		t.Errorf("a 1x1 PNG in 64-column base64: %v", err)
	}
}

func status(ctx context.Context, c *wda.Client) error { _, err := c.Status(ctx); return err }
func tap(ctx context.Context, c *wda.Client) error    { return c.Tap(ctx, 1, 1) }
func shot(ctx context.Context, c *wda.Client) error   { _, err := shotOf(ctx, c); return err }
func shotOf(ctx context.Context, c *wda.Client) ([]byte, error) {
	return c.Screenshot(ctx)
}
func source(ctx context.Context, c *wda.Client) error { _, err := c.Source(ctx); return err }
func locked(ctx context.Context, c *wda.Client) error { _, err := c.Locked(ctx); return err }
func app(ctx context.Context, c *wda.Client) error    { _, err := c.ActiveApp(ctx); return err }
func size(ctx context.Context, c *wda.Client) error {
	// The server answers the session's creation and the size alike; give it a size that fails.
	_, _, err := c.WindowSize(ctx)
	return err
}

// A WebDriverAgent that forgets every session it makes: the call retries once, then fails.
func TestSessionLostTwice(t *testing.T) {
	var requests atomic.Int64
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if requests.Add(1) > 10 {
			w.WriteHeader(http.StatusTeapot) // stop a client that retries forever
			return
		}
		if r.URL.Path == "/session" {
			_, _ = io.WriteString(w, `{"value":{"sessionId":"S`+strconv.FormatInt(requests.Load(), 10)+`"},"sessionId":null}`)
			return
		}
		w.WriteHeader(http.StatusNotFound)
		_, _ = io.WriteString(w, `{"value":{"error":"invalid session id","message":"gone","traceback":""},"sessionId":null}`)
	}))
	t.Cleanup(hs.Close)
	c := wda.New("http://wda", dialTo(hs.Listener.Addr().String()))
	err := c.Tap(ctxFor(t), 1, 1)
	if !wda.IsInvalidSession(err) {
		t.Errorf("got %v; want invalid session id", err)
	}
	if n := requests.Load(); n != 4 {
		t.Errorf("%d requests; want 4: a session, the tap, a new session, the tap again", n)
	}
}

// A call waiting for another's session creation gives up at its own deadline.
func TestWaitingForASessionHonoursCtx(t *testing.T) {
	f := newFarm(t, 750, 1334, 2)
	f.srv.Load().SetFault(wdasim.FaultHang)
	creating, cancel := context.WithCancel(t.Context())
	defer cancel()
	first := make(chan error, 1)
	go func() { first <- f.c.Tap(creating, 1, 1) }()
	waitFor(t, "the first call to be creating the session", func() bool { return f.srv.Load().Requests() == 1 })
	ctx, cancel2 := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel2()
	start := time.Now()
	_, _, err := f.c.WindowSize(ctx)
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 5*time.Second {
		t.Errorf("the waiting call: %v after %s; want its deadline", err, time.Since(start))
	}
	cancel()
	if err := <-first; !errors.Is(err, context.Canceled) {
		t.Errorf("the creating call: %v; want cancelled", err)
	}
}

// pngClaiming is a 1x1 PNG whose header claims w x h pixels, with a valid checksum.
func pngClaiming(w, h uint32) []byte {
	var buf bytes.Buffer
	_ = png.Encode(&buf, image.NewGray(image.Rect(0, 0, 1, 1)))
	b := buf.Bytes()
	// The signature (8), the IHDR chunk's length (4) and type (4), then width and height.
	binary.BigEndian.PutUint32(b[16:], w)
	binary.BigEndian.PutUint32(b[20:], h)
	binary.BigEndian.PutUint32(b[29:], crc32.ChecksumIEEE(b[12:29]))
	return b
}
