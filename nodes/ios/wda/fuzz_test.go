package wda

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
	"time"
)

// The decoders take what a phone sends: nothing may make them panic, and whatever they refuse
// is an *Error or wraps ErrBadAnswer.

func wantKnown(t *testing.T, err error) {
	t.Helper()
	var we *Error
	if err != nil && !errors.Is(err, ErrBadAnswer) && !errors.As(err, &we) {
		t.Fatalf("an error of an unknown kind: %v", err)
	}
	if we != nil && (len(we.Code) > maxCode+len("…") || len(we.Message) > maxMessage+len("…")) {
		t.Fatalf("an error kept %d+%d bytes of the answer", len(we.Code), len(we.Message))
	}
}

func FuzzEnvelope(f *testing.F) {
	for _, s := range []string{
		`{"value":null,"sessionId":null}`,
		`{"value":{"ready":true},"sessionId":"0F5E1A2B-0000-4000-8000-000000000000"}`,
		`{"value":{"error":"invalid session id","message":"gone","traceback":""},"sessionId":null}`,
		`{"status":6,"value":"no session"}`,
		`{"value":{"error":7}}`, `{"value":"x","sessionId":"a/b"}`, `[]`, ``, `{`, `null`, `{"value":1e999}`,
	} {
		f.Add(200, []byte(s))
		f.Add(404, []byte(s))
	}
	f.Fuzz(func(t *testing.T, status int, body []byte) {
		v, sid, err := decodeEnvelope(status, body)
		wantKnown(t, err)
		if err == nil {
			if status < 200 || status > 299 || v == nil || !json.Valid(v) {
				t.Fatalf("accepted HTTP %d with value %q", status, v)
			}
			if sid != "" && !validSessionID(sid) {
				t.Fatalf("accepted session id %q", sid)
			}
		}
	})
}

func FuzzStatus(f *testing.F) {
	for _, s := range []string{
		`{"ready":true,"state":"success","message":"ok","os":{"name":"iOS","version":"17.5"},"ios":{"ip":"10.0.0.2"},"build":{"productBundleIdentifier":"com.facebook.WebDriverAgentRunner"}}`,
		`{"state":"success","ios":{"ip":null}}`, `{"ready":"yes"}`, `null`, `"success"`, `{"os":[]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, v []byte) {
		st, err := decodeStatus(v)
		wantKnown(t, err)
		if err == nil && (len(st.State) > maxCode+len("…") || len(st.Message) > maxMessage+len("…")) {
			t.Fatalf("status kept %d bytes", len(st.Message))
		}
	})
}

func FuzzError(f *testing.F) {
	for _, s := range []string{
		`{"error":"unknown command","message":"Unhandled endpoint","traceback":""}`,
		`{"error":"","message":"x"}`, `{"error":null}`, `{"error":"x","message":{"a":1}}`, `"error"`,
		`{"error":"` + strings.Repeat("e", 300) + `","message":"` + strings.Repeat("\xff", 5000) + `"}`,
	} {
		f.Add(500, []byte(s))
	}
	f.Fuzz(func(t *testing.T, status int, v []byte) {
		e := decodeError(status, v)
		if e == nil {
			return
		}
		if e.Code == "" || e.HTTPStatus != status {
			t.Fatalf("decoded %+v from %q", e, v)
		}
		wantKnown(t, e)
		_ = e.Error()
	})
}

func FuzzScreenshot(f *testing.F) {
	const png1x1 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
	for _, s := range []string{
		`"` + png1x1 + `"`, `"` + png1x1[:64] + `\r\n` + png1x1[64:] + `"`, `"` + png1x1[:30] + `"`,
		`"` + base64.StdEncoding.EncodeToString([]byte("\x89PNG\r\n\x1a\n")) + `"`, `null`, `7`, `"%%%"`, `""`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, v []byte) {
		b, err := decodeScreenshot(v)
		wantKnown(t, err)
		if err == nil && !strings.HasPrefix(string(b), pngMagic) {
			t.Fatalf("accepted a screenshot that is not a PNG: %q", b[:min(len(b), 16)])
		}
	})
}

const pngMagic = "\x89PNG\r\n\x1a\n"

func FuzzAppInfo(f *testing.F) {
	for _, s := range []string{
		`{"pid":123,"bundleId":"com.apple.Preferences","name":"","processArguments":{"args":[],"env":{}}}`,
		`{"pid":null,"bundleId":"a","processArguments":{}}`, `{"pid":1e30,"bundleId":"a"}`, `{"bundleId":5}`, `[]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, v []byte) {
		info, err := decodeAppInfo(v)
		wantKnown(t, err)
		if err == nil && (info.BundleID == "" || len(info.BundleID) > maxBundleID) {
			t.Fatalf("accepted bundle id %q", info.BundleID)
		}
	})
}

func FuzzSource(f *testing.F) {
	for _, s := range []string{
		`<?xml version="1.0" encoding="UTF-8"?><XCUIElementTypeApplication type="XCUIElementTypeApplication" name="a"><XCUIElementTypeButton label="OK &amp; go"/></XCUIElementTypeApplication>`,
		`<XCUIElementTypeOther>`, `<a/>`, `<XCUIElementTypeOther/><XCUIElementTypeOther/>`, `text<XCUIElementTypeOther/>`,
		`<XCUIElementTypeOther></XCUIElementTypeButton>`, ``, `<!DOCTYPE x [<!ENTITY a "b">]><XCUIElementTypeOther>&a;</XCUIElementTypeOther>`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		wantKnown(t, checkSource(s))
	})
}

// The swipe a client sends is W3C actions whatever the numbers: finite, in order, in
// milliseconds, or refused before anything is sent.
func FuzzSwipeActions(f *testing.F) {
	f.Add(187.5, 500.0, 187.5, 200.0, int64(300*time.Millisecond), int64(100*time.Millisecond))
	f.Add(0.0, 0.0, 0.0, 0.0, int64(0), int64(0))
	f.Add(-1.0, 1e308, math.Inf(1), 2.0, int64(-1), int64(time.Hour+1))
	f.Fuzz(func(t *testing.T, fx, fy, tx, ty float64, d, hold int64) {
		a, err := swipeActions(fx, fy, tx, ty, time.Duration(d), time.Duration(hold))
		if err != nil {
			return
		}
		body, err := json.Marshal(a)
		if err != nil {
			t.Fatalf("built actions JSON cannot carry: %v", err)
		}
		var back struct {
			Actions []struct {
				Type    string `json:"type"`
				Actions []struct {
					Type     string `json:"type"`
					Duration *int64 `json:"duration"`
				} `json:"actions"`
			} `json:"actions"`
		}
		if err := json.Unmarshal(body, &back); err != nil || len(back.Actions) != 1 || back.Actions[0].Type != "pointer" {
			t.Fatalf("actions %s: %v", body, err)
		}
		var types []string
		var ms int64
		for _, st := range back.Actions[0].Actions {
			types = append(types, st.Type)
			if st.Duration != nil {
				if *st.Duration < 0 {
					t.Fatalf("negative duration in %s", body)
				}
				ms += *st.Duration
			}
		}
		want := "pointerMove pointerDown pointerMove pointerUp"
		if hold > 0 {
			want = "pointerMove pointerDown pause pointerMove pointerUp"
		}
		if strings.Join(types, " ") != want {
			t.Fatalf("steps %v, want %s", types, want)
		}
		if ms != time.Duration(d).Milliseconds()+time.Duration(hold).Milliseconds() {
			t.Fatalf("durations add to %d ms for d=%s hold=%s", ms, time.Duration(d), time.Duration(hold))
		}
	})
}
