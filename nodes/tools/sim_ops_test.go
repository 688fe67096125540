package tools_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/corral-farm/corral/nodes/sim"
	"github.com/corral-farm/corral/nodes/tools"
)

// run runs op name on the simulated phone, failing the test on an error.
func run(t *testing.T, p *sim.Phone, name, args string) tools.Output {
	t.Helper()
	out, err := tools.DefaultOps()[name].Run(context.Background(), &tools.Task{Driver: p, Args: []byte(args)})
	if err != nil {
		t.Fatalf("%s %s: %v", name, args, err)
	}
	return out
}

func packages(t *testing.T, p *sim.Phone) []string {
	t.Helper()
	return run(t, p, "list_packages", `{}`).Data.(tools.PackagesResult).Packages
}

// The Android issue's app and system tools on the simulated phone.
func TestAppToolsOnTheSimPhone(t *testing.T) {
	p := sim.New("sim-ops")
	defer p.Close()
	local := filepath.Join(t.TempDir(), "com.example.local.apk")
	if err := os.WriteFile(local, []byte("PK"), 0o600); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("PK remote")) }))
	defer srv.Close()

	if r := run(t, p, "app_install", `{"appUrl":`+strconv.Quote(local)+`}`).Data.(tools.AppInstallResult); r.PackageName != "com.example.local" {
		t.Fatalf("app_install named %q, want com.example.local: %+v", r.PackageName, r)
	}
	run(t, p, "app_install", `{"appUrl":"`+srv.URL+`/builds/com.example.remote.apk"}`)
	if pk := packages(t, p); !slices.Contains(pk, "com.example.local") || !slices.Contains(pk, "com.example.remote") {
		t.Fatalf("installed packages missing: %v", pk)
	}
	run(t, p, "app_uninstall", `{"packageName":"com.example.remote"}`)
	if slices.Contains(packages(t, p), "com.example.remote") {
		t.Fatal("uninstalled package still listed")
	}
	if _, err := tools.DefaultOps()["app_uninstall"].Run(context.Background(), &tools.Task{Driver: p, Args: []byte(`{"packageName":"com.corral.notes"}`)}); err == nil ||
		!strings.Contains(err.Error(), "system app") {
		t.Fatalf("uninstalling a system app: %v", err)
	}

	// Notes: type, clear its data, the note is gone.
	run(t, p, "app_launch", `{"packageName":"com.corral.notes"}`)
	run(t, p, "input", `{"text":"remember the milk"}`)
	run(t, p, "app_clear", `{"packageName":"com.corral.notes"}`)
	run(t, p, "app_launch", `{"packageName":"com.corral.notes"}`)
	src := run(t, p, "get_source", `{}`).Data.(tools.SourceResult).Source
	if strings.Contains(src, "remember the milk") {
		t.Fatal("app_clear left the note")
	}

	run(t, p, "set_ime", `{"ime":"com.android.adbkeyboard/.AdbIME"}`)
	run(t, p, "send_to_clipboard", `{"text":"paste me"}`)
	if p.IME() != "com.android.adbkeyboard/.AdbIME" || p.Clipboard() != "paste me" {
		t.Fatalf("ime %q clipboard %q", p.IME(), p.Clipboard())
	}
	fq := run(t, p, "force_quit", `{}`).Data.(tools.ForceQuitResult)
	if fq.PackageName != "com.corral.notes" || !fq.Quit {
		t.Fatalf("force_quit %+v", fq)
	}
	if fg, _ := p.ForegroundApp(context.Background()); fg != "com.corral.launcher" {
		t.Fatalf("after force_quit %s is in front", fg)
	}
}

// A bbox swipe up on the Shop's list scrolls it by the distance the finger moved: 2 cm at the
// phone's density.
func TestSwipeBBoxScrollsTheSimShop(t *testing.T) {
	for _, dpi := range []int{420, 320} {
		p := sim.New("sim-swipe", sim.WithDensity(dpi))
		run(t, p, "app_launch", `{"packageName":"com.corral.shop"}`)
		before := run(t, p, "get_source", `{}`).Data.(tools.SourceResult).Source
		out := run(t, p, "swipe", `{"bbox":[0.3,0.5,0.7,0.6],"direction":"up","size":"m"}`)
		r := out.Data.(tools.SwipeResult)
		want := int(2/2.54*float64(dpi) + 0.5)
		if r.DPI != dpi || r.DensityAssumed || r.FromPixel.Y-r.ToPixel.Y != want {
			t.Errorf("%d dpi: %+v, want a %d px move", dpi, r, want)
		}
		log := p.InputLog()
		if got := log[len(log)-1]; !strings.HasPrefix(got, "swipe 540 1319 540 "+strconv.Itoa(1319-want)+" dur=400ms") { // 0.55×2399 = 1319.45
			t.Errorf("%d dpi: the phone got %q", dpi, got)
		}
		if after := run(t, p, "get_source", `{}`).Data.(tools.SourceResult).Source; after == before {
			t.Errorf("%d dpi: the list did not scroll", dpi)
		}
		p.Close()
	}
}

// max_width scales screenshots and peek's image down, aspect kept; what the schema refuses is bad_input.
func TestImageMaxWidth(t *testing.T) {
	p := sim.New("sim-width")
	defer p.Close()
	for _, tool := range []string{"screenshot", "take_screenshot", "peek"} {
		full := imageOf(t, run(t, p, tool, `{}`)).Bounds()
		small := imageOf(t, run(t, p, tool, `{"max_width":540}`)).Bounds()
		if full.Dx() != 1080 || small.Dx() != 540 || small.Dy() != full.Dy()/2 {
			t.Errorf("%s: full %v, max_width 540 gave %v", tool, full, small)
		}
		if same := imageOf(t, run(t, p, tool, `{"max_width":4000}`)).Bounds(); same != full {
			t.Errorf("%s: max_width wider than the screen gave %v", tool, same)
		}
		// No width the schema allows is refused: past any screen is the screen's width, one
		// too narrow to read is 64 px.
		if same := imageOf(t, run(t, p, tool, `{"max_width":100000}`)).Bounds(); same != full {
			t.Errorf("%s: max_width 100000 gave %v", tool, same)
		}
		narrowOut := run(t, p, tool, `{"max_width":10}`)
		if narrow := imageOf(t, narrowOut).Bounds(); narrow.Dx() != 64 {
			t.Errorf("%s: max_width 10 gave %v, want 64 px wide", tool, narrow)
		}
		// The answer says the image is wider than asked: message is for an image not as asked.
		if msg := messageOf(t, narrowOut); !strings.Contains(msg, "64 px wide, not max_width 10") {
			t.Errorf("%s: max_width 10 answered message %q, want it to say the image is 64 px wide, not 10", tool, msg)
		}
		if msg := messageOf(t, run(t, p, tool, `{"max_width":540}`)); strings.Contains(msg, "max_width") {
			t.Errorf("%s: max_width 540 answered message %q: it is as wide as asked", tool, msg)
		}
		for _, bad := range []string{`{"max_width":-1}`, `{"max_width":"wide"}`} {
			_, err := tools.DefaultOps()[tool].Run(context.Background(), &tools.Task{Driver: p, Args: []byte(bad)})
			if tools.ErrorCode(err) != "bad_input" {
				t.Errorf("%s %s: %v, want bad input", tool, bad, err)
			}
		}
	}
	if d := run(t, p, "screenshot", `{"max_width":540}`).Data.(tools.ScreenshotResult); d.Width != 540 || d.Height != 1200 {
		t.Errorf("screenshot result says %dx%d, want the delivered 540x1200", d.Width, d.Height)
	}
}

// messageOf is the message of a screenshot's or peek's answer.
func messageOf(t *testing.T, out tools.Output) string {
	t.Helper()
	switch d := out.Data.(type) {
	case tools.ScreenshotResult:
		return d.Message
	case tools.PeekResult:
		return d.Message
	}
	t.Fatalf("answer data %T has no message", out.Data)
	return ""
}
