package tools

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/nodes/device"
)

func TestHomeScreenAndGoBack(t *testing.T) {
	d := newAbled()
	var keys []string
	d.PressKeyFn = func(_ context.Context, k string) error { keys = append(keys, k); return nil }
	home := mustRun(t, "home_screen", d, `{}`)
	back := mustRun(t, "go_back", d, ``)
	if strings.Join(keys, ",") != "HOME,BACK" {
		t.Fatalf("keys %v", keys)
	}
	if !strings.Contains(home["hint"].(string), "home screen") || !strings.Contains(back["hint"].(string), "home_screen") {
		t.Errorf("hints %q / %q", home["hint"], back["hint"])
	}
	for _, op := range []string{"home_screen", "go_back"} {
		_, err := runOp(t, op, d, `{"bbox":[0,0,1,1]}`)
		wantCode(t, err, broker.CodeBadInput)
		_, err = runOp(t, op, newFake(), `{}`)
		wantCode(t, err, broker.CodeUnsupported)
	}
}

// iOS has no BACK key: go_back swipes right from the left edge.
func TestGoBackOnIOSSwipesFromTheEdge(t *testing.T) {
	d, calls := swiper()
	d.info.Platform = device.PlatformIOS
	res := mustRun(t, "go_back", d, `{}`)
	want := swipeCall{device.Point{X: 0, Y: 1200}, device.Point{X: 647, Y: 1200}, 300 * time.Millisecond, 0}
	if len(*calls) != 1 || (*calls)[0] != want {
		t.Fatalf("swipes %+v, want %+v", *calls, want)
	}
	if !strings.Contains(res["message"].(string), "left edge") {
		t.Errorf("message %q", res["message"])
	}
	f := newFake()
	f.info.Platform = device.PlatformIOS
	_, err := runOp(t, "go_back", f, `{}`)
	wantCode(t, err, broker.CodeUnsupported)
}

func TestForceQuit(t *testing.T) {
	d := newAbled()
	var calls []string
	d.ForegroundFn = func(context.Context) (string, error) { return "com.example.app", nil }
	d.TerminateAppFn = func(_ context.Context, p string) error { calls = append(calls, "stop "+p); return nil }
	d.PressKeyFn = func(_ context.Context, k string) error { calls = append(calls, "key "+k); return nil }
	res := mustRun(t, "force_quit", d, `{}`)
	if strings.Join(calls, ",") != "stop com.example.app,key HOME" {
		t.Fatalf("calls %v", calls)
	}
	if res["packageName"] != "com.example.app" || res["quit"] != true || !strings.Contains(res["hint"].(string), "reopen") {
		t.Fatalf("result %v", res)
	}

	// The home screen in front: nothing to quit.
	calls = nil
	d.ForegroundFn = func(context.Context) (string, error) { return "com.google.android.apps.nexuslauncher", nil }
	res = mustRun(t, "force_quit", d, `{}`)
	if len(calls) != 0 || res["quit"] != false || !strings.Contains(res["message"].(string), "no app to quit") {
		t.Fatalf("launcher in front: calls %v result %v", calls, res)
	}

	// The system UI in front, or nothing named, or a failure: an error, nothing stopped.
	for fg, want := range map[string]string{"com.android.systemui": "system UI", "": "cannot tell", " ": "cannot tell"} {
		d.ForegroundFn = func(context.Context) (string, error) { return fg, nil }
		_, err := runOp(t, "force_quit", d, `{}`)
		wantCode(t, err, broker.CodeDriver)
		if !strings.Contains(err.Error(), want) {
			t.Errorf("foreground %q: %v", fg, err)
		}
	}
	d.ForegroundFn = func(context.Context) (string, error) { return "", errDriver }
	_, err := runOp(t, "force_quit", d, `{}`)
	wantCode(t, err, broker.CodeDriver)
	if len(calls) != 0 {
		t.Fatalf("stopped something: %v", calls)
	}
	_, err = runOp(t, "force_quit", newFake(), `{}`)
	wantCode(t, err, broker.CodeUnsupported)
	_, err = runOp(t, "force_quit", d, `{"packageName":"com.x"}`)
	wantCode(t, err, broker.CodeBadInput)
}

func TestSendToClipboard(t *testing.T) {
	d := newAbled()
	var got []string
	d.SetClipboardFn = func(_ context.Context, s string) error { got = append(got, s); return nil }
	res := mustRun(t, "send_to_clipboard", d, `{"text":"héllo 'x' $(rm -rf /)"}`)
	if len(got) != 1 || got[0] != "héllo 'x' $(rm -rf /)" || res["characters"] != 21.0 || !strings.Contains(res["hint"].(string), "long_press") {
		t.Fatalf("clipboard %q result %v", got, res)
	}
	for _, args := range []string{`{}`, `{"text":""}`, `{"text":5}`, `{"text":"a","paste":true}`, `{"text":"` + strings.Repeat("a", MaxInputBytes+1) + `"}`} {
		_, err := runOp(t, "send_to_clipboard", d, args)
		wantCode(t, err, broker.CodeBadInput)
	}
	if len(got) != 1 {
		t.Fatalf("bad input reached the driver: %q", got)
	}
	if err := checkArgs(&ClipboardArgs{Text: "a\xff"}); err == nil {
		t.Error("invalid UTF-8 accepted")
	}
	_, err := runOp(t, "send_to_clipboard", newFake(), `{"text":"a"}`)
	wantCode(t, err, broker.CodeUnsupported)
}

func TestSetIME(t *testing.T) {
	d := newAbled()
	var got []string
	d.SetIMEFn = func(_ context.Context, s string) error { got = append(got, s); return nil }
	res := mustRun(t, "set_ime", d, `{"ime":"com.android.adbkeyboard/.AdbIME"}`)
	if len(got) != 1 || got[0] != "com.android.adbkeyboard/.AdbIME" || res["ime"] != got[0] || res["hint"] == "" {
		t.Fatalf("ime %q result %v", got, res)
	}
	for _, args := range []string{`{}`, `{"ime":""}`, `{"ime":"a b"}`, `{"ime":"x;reboot"}`, `{"ime":"a$(id)"}`,
		`{"ime":"` + strings.Repeat("a", 256) + `"}`, `{"ime":7}`, `{"method":"x"}`} {
		_, err := runOp(t, "set_ime", d, args)
		wantCode(t, err, broker.CodeBadInput)
	}
	if len(got) != 1 {
		t.Fatalf("bad input reached the driver: %q", got)
	}
	_, err := runOp(t, "set_ime", newFake(), `{"ime":"a/.b"}`)
	wantCode(t, err, broker.CodeUnsupported)
}
