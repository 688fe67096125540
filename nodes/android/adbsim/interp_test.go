package adbsim

import (
	"context"
	"encoding/base64"
	"image"
	"strings"
	"testing"
	"time"
)

func TestContractAnswers(t *testing.T) {
	d := newDevice(t)
	for _, tc := range []struct{ line, want string }{
		{"wm size", "Physical size: 1080x2400\n"},
		{"wm density", "Physical density: 420\n"},
		{"dumpsys input | grep Orientation", "      InputDeviceOrientation: 0\n"},
		{"dumpsys window | grep mCurrentFocus", "  mCurrentFocus=Window{1a2b3c u0 com.corral.launcher/com.corral.launcher.Launcher}\n"},
		{"input tap 540 1200", ""},
		{"monkey -p com.corral.notes -c android.intent.category.LAUNCHER 1 | grep Events", "Events injected: 1\n"},
		{"dumpsys window | grep mCurrentFocus", "  mCurrentFocus=Window{1a2b3c u0 com.corral.notes/com.corral.notes.MainActivity}\n"},
		{"monkey -p com.nope -c android.intent.category.LAUNCHER 1 | grep -v bash", "** No activities found to run, monkey aborted.\n"},
		{"am force-stop com.corral.notes", ""},
		{"pm clear com.corral.notes", "Success\n"},
		{"pm clear com.nope", "Failed\n"},
		{"pm uninstall com.corral.notes", "Failure [DELETE_FAILED_INTERNAL_ERROR]\n"},
		{"pm list packages | grep notes", "package:com.corral.notes\n"},
		{"dumpsys battery | grep -e level", "  level: 87\n"},
		{"getprop ro.product.model", "Corral SimAndroid\n"},
		{"getprop ro.build.version.sdk", "34\n"},
		{"getprop no.such.prop", "\n"},
		{"ime set com.android.adbkeyboard/.AdbIME", "Input method com.android.adbkeyboard/.AdbIME selected for user #0\n"},
		{"ime set bogus/.IME", "Unknown input method bogus/.IME cannot be selected for user #0\n"},
		{"am broadcast -a clipper.set -e text 'hi there'", "Broadcasting: Intent { act=clipper.set flg=0x400000 (has extras) }\n" +
			"Broadcast completed: result=-1, data=\"Text is copied into clipboard.\"\n"},
		{"frobnicate --now", "/system/bin/sh: frobnicate: not found\n"},
		{"frobnicate 2>/dev/null", ""},
		{"echo $(reboot)", "/system/bin/sh: syntax error: unsupported '$': this device interprets only quoting, ;, &, &&, ||, | and redirections\n"},
		{"false && echo no; echo yes", "yes\n"},
		{"false || echo alt && echo and", "alt\nand\n"},
		{"rm /data/local/tmp/none", "rm: /data/local/tmp/none: No such file or directory\n"},
		{"rm -f /data/local/tmp/none </dev/null", ""},
	} {
		if got := sh(t, d, tc.line); got != tc.want {
			t.Errorf("%s\n got %q\nwant %q", tc.line, got, tc.want)
		}
	}
	if got := d.Clipboard(); got != "hi there" {
		t.Errorf("clipboard = %q", got)
	}
	wantLog(t, d, "tap 540 1200 hold=0s", "launch com.corral.notes", "launch com.nope", "terminate com.corral.notes", "clear com.corral.notes")
}

func TestInputCommands(t *testing.T) {
	d := newDevice(t)
	sh(t, d, "monkey -p com.corral.notes -c android.intent.category.LAUNCHER 1")
	for _, line := range []string{
		`input text 'it'\''s%sa%stest'`,
		`input text "two words"`, // only the first argument counts, as on a phone
		`input text one two`,
		"input keyevent KEYCODE_DEL",
		"input keyevent 66",
		"input swipe 100 200 100 200 800",
		"input swipe 540 1800 540 600 300",
		"input draganddrop 10 20 30 40 1000",
		"input touchscreen tap 5 6",
		"input keyevent KEYCODE_HOME",
	} {
		if got := sh(t, d, line); got != "" {
			t.Errorf("%s: %q", line, got)
		}
	}
	wantLog(t, d, `text "it's a test"`, `text "two words"`, `text "one"`, "key DEL", "key ENTER",
		"tap 100 200 hold=800ms", "swipe 540 1800 540 600 dur=300ms hold=0s",
		"swipe 10 20 30 40 dur=1s hold=500ms", "tap 5 6 hold=0s", "key HOME")
	if got := sh(t, d, "input tap 1"); got != "Error: Invalid arguments for command: tap\n" {
		t.Errorf("input tap 1: %q", got)
	}
}

// A pipeline ended with & runs alongside what follows; wait, and the end of the line, wait
// for it and add its output. Its status does not count.
func TestBackgroundJobs(t *testing.T) {
	d := newDevice(t)
	start := time.Now()
	out, status := d.run(context.Background(), "sleep 0.2 && echo late & echo early; wait; echo after")
	if string(out) != "early\nlate\nafter\n" || status != 0 {
		t.Errorf("output %q status %d, want early, late, after and 0", out, status)
	}
	if took := time.Since(start); took < 200*time.Millisecond || took > 2*time.Second {
		t.Errorf("took %v: wait did not wait for the 0.2 s job, or the jobs ran one after the other", took)
	}
	if out, status := d.run(context.Background(), "false &"); string(out) != "" || status != 0 {
		t.Errorf("a failing background job: output %q status %d, want nothing and 0", out, status)
	}
	if out := sh(t, d, "sleep 0.1 && echo job &"); out != "job\n" {
		t.Errorf("the end of the line did not wait for the job: %q", out)
	}
}

func TestInputBase64(t *testing.T) {
	d := newDevice(t)
	sh(t, d, "monkey -p com.corral.notes -c android.intent.category.LAUNCHER 1")
	msg := base64.StdEncoding.EncodeToString([]byte("héllo wörld ✓"))
	line := "am broadcast -a ADB_INPUT_B64 --es msg " + msg
	want := "Broadcasting: Intent { act=ADB_INPUT_B64 flg=0x400000 (has extras) }\nBroadcast completed: result=0\n"
	if got := sh(t, d, line); got != want {
		t.Errorf("%q", got)
	}
	if log := d.Phone().InputLog(); strings.HasPrefix(log[len(log)-1], "text") {
		t.Errorf("text typed without the ADBKeyboard input method selected: %q", log)
	}
	sh(t, d, "ime set "+imeADB)
	if got := sh(t, d, line); got != want {
		t.Errorf("%q", got)
	}
	wantLog(t, d, `text "héllo wörld ✓"`)
}

func TestDisplayOverrides(t *testing.T) {
	d := newDevice(t)
	for _, tc := range []struct{ line, want string }{
		{"wm size 720x1600 && wm size", "Physical size: 1080x2400\nOverride size: 720x1600\n"},
		{"wm density 320; wm density", "Physical density: 420\nOverride density: 320\n"},
		{"wm density reset && wm density", "Physical density: 420\n"},
		{"wm size bogus", "Error: bad size bogus\n"},
	} {
		if got := sh(t, d, tc.line); got != tc.want {
			t.Errorf("%s\n got %q\nwant %q", tc.line, got, tc.want)
		}
	}
	// 720x1600 is 2/3 of the phone: display pixel 360,800 is phone pixel 540,1200.
	sh(t, d, "input tap 360 800")
	wantLog(t, d, "tap 540 1200 hold=0s")
	if err := d.SetRotation(1); err != nil {
		t.Fatal(err)
	}
	if got := sh(t, d, "dumpsys input | grep Orientation"); got != "      InputDeviceOrientation: 1\n" {
		t.Errorf("rotation: %q", got)
	}
	// Landscape 1600x720: its top-left corner is the natural frame's top-right.
	sh(t, d, "input tap 0 0")
	wantLog(t, d, "tap 1079 0 hold=0s")
	src := sh(t, d, "uiautomator dump /dev/tty")
	if !strings.Contains(src, `<hierarchy rotation="1">`) || !strings.Contains(src, `bounds="[0,0][1600,720]"`) {
		t.Errorf("rotated dump: %.300s", src)
	}
	sh(t, d, "wm size reset")
	if err := d.SetRotation(4); err == nil {
		t.Error("SetRotation(4) accepted")
	}
}

func TestDisplayMapping(t *testing.T) {
	for r := range 4 {
		s := display{physW: 1080, physH: 2400, overW: 720, overH: 1600, rotation: r}
		w, h := s.size()
		// Each display corner maps to a phone corner, and a phone rectangle maps back to itself.
		for _, pt := range [][2]float64{{0, 0}, {float64(w - 1), 0}, {0, float64(h - 1)}, {float64(w - 1), float64(h - 1)}} {
			p := s.toPhone(pt[0], pt[1])
			if (p.X != 0 && p.X != 1079 && p.X != 1078) || (p.Y != 0 && p.Y != 2399 && p.Y != 2398) {
				t.Errorf("rotation %d: display %v -> phone %v, not a corner", r, pt, p)
			}
		}
		full := s.rectFromPhone(image.Rect(0, 0, s.physW, s.physH))
		if full.Dx() != w || full.Dy() != h || full.Min.X != 0 || full.Min.Y != 0 {
			t.Errorf("rotation %d: the phone maps to %v, want the %dx%d display", r, full, w, h)
		}
	}
}

// TestDisplayImageMatchesInput checks that the screenshot and input agree in every rotation:
// the pixel shown at a display point is the phone pixel a tap there reaches.
func TestDisplayImageMatchesInput(t *testing.T) {
	const w, h = 4, 6
	src := image.NewRGBA(image.Rect(0, 0, w, h))
	for i := range src.Pix {
		src.Pix[i] = uint8(i)
	}
	for r := range 4 {
		s := display{physW: w, physH: h, rotation: r}
		img := s.image(src)
		dw, dh := s.size()
		if b := img.Bounds(); b.Dx() != dw || b.Dy() != dh {
			t.Fatalf("rotation %d: image %v, display %dx%d", r, b, dw, dh)
		}
		for y := range dh {
			for x := range dw {
				p := s.toPhone(float64(x), float64(y))
				if img.At(x, y) != src.At(p.X, p.Y) {
					t.Fatalf("rotation %d: display (%d,%d) shows %v, a tap there reaches phone %v showing %v",
						r, x, y, img.At(x, y), p, src.At(p.X, p.Y))
				}
			}
		}
	}
}
