package android

import (
	"bytes"
	"encoding/binary"
	"errors"
	"maps"
	"slices"
	"testing"

	"github.com/corral-farm/corral/nodes/device"
)

func TestParseWMSize(t *testing.T) {
	for out, want := range map[string]device.Size{
		"Physical size: 1080x2400\n":                              {Width: 1080, Height: 2400},
		"Physical size: 1080x2400\nOverride size: 720x1600\n":     {Width: 720, Height: 1600},
		"Override size: 720x1600\r\nPhysical size: 1080x2400\r\n": {Width: 720, Height: 1600},
		"  Physical size:   1440x3120  ":                          {Width: 1440, Height: 3120},
	} {
		got, err := parseWMSize(out)
		if err != nil || got != want {
			t.Errorf("parseWMSize(%q) = %v, %v; want %v", out, got, err, want)
		}
	}
	for _, out := range []string{"", "Physical size: x\n", "Physical size: 0x100", "Physical size: -1x2",
		"Error: no display", "Physical size: 1080x2400x3", "Physical size: 99999999999x1"} {
		if got, err := parseWMSize(out); !errors.Is(err, ErrCommandFailed) {
			t.Errorf("parseWMSize(%q) = %v, %v; want ErrCommandFailed", out, got, err)
		}
	}
}

func TestParseWMDensity(t *testing.T) {
	for out, want := range map[string]int{
		"Physical density: 420\n":                        420,
		"Physical density: 420\nOverride density: 320\n": 320,
		"Physical density: 560\r\n":                      560,
		"Override density: 240\nPhysical density: 480\n": 240,
	} {
		got, err := parseWMDensity(out)
		if err != nil || got != want {
			t.Errorf("parseWMDensity(%q) = %d, %v; want %d", out, got, err, want)
		}
	}
	for _, out := range []string{"", "Physical density: abc", "Physical density: 0", "density 420"} {
		if _, err := parseWMDensity(out); !errors.Is(err, ErrCommandFailed) {
			t.Errorf("parseWMDensity(%q): %v, want ErrCommandFailed", out, err)
		}
	}
}

func TestParseOrientationAndRotate(t *testing.T) {
	natural := device.Size{Width: 1080, Height: 2400}
	for out, want := range map[string]struct {
		rot   int
		found bool
		size  device.Size
	}{
		"      SurfaceOrientation: 0\n":                            {0, true, natural},
		"      SurfaceOrientation: 1\n":                            {1, true, device.Size{Width: 2400, Height: 1080}},
		"      SurfaceOrientation: 2\n      SurfaceOrientation: 1": {2, true, natural},
		"      SurfaceOrientation: 3\r\n":                          {3, true, device.Size{Width: 2400, Height: 1080}},
		"":                                                         {0, false, natural},
		// Android 13 and 14, and 15 on; other lines with "Orientation" in them are not it.
		"    Orientation: landscape\n      InputDeviceOrientation: 1\n": {1, true, device.Size{Width: 2400, Height: 1080}},
		"      InputDeviceOrientation: Rotation270\n":                   {3, true, device.Size{Width: 2400, Height: 1080}},
		"      InputDeviceOrientation: Rotation180\n":                   {2, true, natural},
	} {
		rot, found, err := parseOrientation(out)
		if err != nil || rot != want.rot || found != want.found {
			t.Errorf("parseOrientation(%q) = %d, %v, %v; want %d, %v", out, rot, found, err, want.rot, want.found)
		}
		if got := rotate(natural, rot); got != want.size {
			t.Errorf("rotate(%v, %d) = %v, want %v", natural, rot, got, want.size)
		}
	}
	for _, out := range []string{"SurfaceOrientation: 4", "SurfaceOrientation: -1", "SurfaceOrientation: x",
		"InputDeviceOrientation: Rotation45", "InputDeviceOrientation: Rotation360", "InputDeviceOrientation: Rotation"} {
		if _, _, err := parseOrientation(out); !errors.Is(err, ErrCommandFailed) {
			t.Errorf("parseOrientation(%q): %v, want ErrCommandFailed", out, err)
		}
	}
}

func TestParsePackages(t *testing.T) {
	out := "package:com.android.settings\npackage:com.corral.notes\r\n\npackage:\nnot a package\n"
	if got, want := parsePackages(out), []string{"com.android.settings", "com.corral.notes"}; !slices.Equal(got, want) {
		t.Errorf("parsePackages = %q, want %q", got, want)
	}
	if got := parsePackages(""); len(got) != 0 {
		t.Errorf("parsePackages(\"\") = %q", got)
	}
}

func TestParsePMResult(t *testing.T) {
	for _, out := range []string{"Success\n", "Performing Streamed Install\nSuccess\n", "Success"} {
		if err := parsePMResult(out); err != nil {
			t.Errorf("parsePMResult(%q) = %v", out, err)
		}
	}
	for out, want := range map[string]string{
		"Failure [INSTALL_FAILED_INVALID_APK]\n":   "INSTALL_FAILED_INVALID_APK",
		"Failure [DELETE_FAILED_INTERNAL_ERROR]\n": "DELETE_FAILED_INTERNAL_ERROR",
		"Failed\n":                      "Failed",
		"Performing Streamed Install\n": "neither Success nor Failure",
		"":                              "neither Success nor Failure",
		"Error: java.lang.SecurityException: denied\n": "Error: java.lang.SecurityException: denied",
	} {
		err := parsePMResult(out)
		if !errors.Is(err, ErrCommandFailed) || !containsAny(err.Error(), want) {
			t.Errorf("parsePMResult(%q) = %v; want ErrCommandFailed saying %q", out, err, want)
		}
	}
}

func TestParseMonkey(t *testing.T) {
	if err := parseMonkey("  bash arg: -p\nEvents injected: 1\n## Network stats: elapsed time=12ms\n"); err != nil {
		t.Error(err)
	}
	for _, out := range []string{"** No activities found to run, monkey aborted.\n", "", "Events injected: 0"} {
		if err := parseMonkey(out); !errors.Is(err, ErrCommandFailed) {
			t.Errorf("parseMonkey(%q) = %v", out, err)
		}
	}
}

func TestParseFocus(t *testing.T) {
	for out, want := range map[string]string{
		"  mCurrentFocus=Window{1a2b3c u0 com.corral.notes/com.corral.notes.Main}\n":             "com.corral.notes",
		"  mCurrentFocus=Window{1a2b3c u0 com.android.launcher3/.Launcher}":                      "com.android.launcher3",
		"  mCurrentFocus=null\n  mCurrentFocus=Window{9f u10 com.example/.A}\n":                  "com.example",
		"mCurrentFocus=Window{abc u0 com.android.settings/com.android.settings.SubSettings}\r\n": "com.android.settings",
	} {
		got, err := parseFocus(out)
		if err != nil || got != want {
			t.Errorf("parseFocus(%q) = %q, %v; want %q", out, got, err, want)
		}
	}
	for _, out := range []string{"", "  mCurrentFocus=null\n", "  mCurrentFocus=Window{1a2b u0 StatusBar}\n",
		"mCurrentFocus=Window{1a u0 Application Not Responding: com.x}", "mCurrentFocus=Window{1a u0 $(x)/y}"} {
		if got, err := parseFocus(out); !errors.Is(err, ErrCommandFailed) {
			t.Errorf("parseFocus(%q) = %q, %v; want ErrCommandFailed", out, got, err)
		}
	}
}

func TestParseIME(t *testing.T) {
	if err := parseIME("Input method com.android.adbkeyboard/.AdbIME selected for user #0\n"); err != nil {
		t.Error(err)
	}
	if err := parseIME("Unknown input method com.x/.Y cannot be selected for user #0\n"); !errors.Is(err, ErrBadArgument) {
		t.Errorf("unknown IME: %v; want ErrBadArgument (the caller's)", err)
	}
	for _, out := range []string{"", "Error: bad"} {
		if err := parseIME(out); !errors.Is(err, ErrCommandFailed) {
			t.Errorf("parseIME(%q) = %v", out, err)
		}
	}
}

func TestParseBattery(t *testing.T) {
	out := "Current Battery Service state:\n  AC powered: false\n  USB powered: true\n  Wireless powered: false\n" +
		"  Max charging current: 500000\n  status: 2\n  health: 2\n  present: true\n  level: 87\n  scale: 100\n"
	want := map[string]string{"battery_level": "87", "battery_status": "charging", "ac_powered": "false",
		"usb_powered": "true", "wireless_powered": "false"}
	if got := parseBattery(out); !maps.Equal(got, want) {
		t.Errorf("parseBattery = %v, want %v", got, want)
	}
	if got := parseBattery("  level: 101\n  status: 9\n"); len(got) != 0 {
		t.Errorf("parseBattery kept nonsense: %v", got)
	}
}

func TestParseBroadcast(t *testing.T) {
	for out, want := range map[string]struct {
		result int
		data   string
	}{
		"Broadcasting: Intent { act=ADB_INPUT_B64 flg=0x400000 (has extras) }\nBroadcast completed: result=0\n": {0, ""},
		"Broadcast completed: result=-1, data=\"Text is copied into clipboard.\"\n":                             {-1, "Text is copied into clipboard."},
	} {
		r, d, err := parseBroadcast(out)
		if err != nil || r != want.result || d != want.data {
			t.Errorf("parseBroadcast(%q) = %d, %q, %v; want %d, %q", out, r, d, err, want.result, want.data)
		}
	}
	for _, out := range []string{"", "Broadcast completed: result=x", "Error: no"} {
		if _, _, err := parseBroadcast(out); !errors.Is(err, ErrCommandFailed) {
			t.Errorf("parseBroadcast(%q) = %v", out, err)
		}
	}
}

func TestStripUIDump(t *testing.T) {
	xml := `<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation="0"><node text="a"/></hierarchy>`
	for _, out := range []string{
		xml + "\nUI hierchary dumped to: /dev/tty\n",
		xml + "UI hierchary dumped to: /dev/tty\n", // real devices: no newline after the XML
		xml,
		"\n" + xml + "\r\nUI hierchary dumped to: /dev/tty\r\n",
	} {
		got, err := stripUIDump(out)
		if err != nil || got != xml {
			t.Errorf("stripUIDump(%q) = %q, %v", out, got, err)
		}
	}
	for _, out := range []string{"", "ERROR: could not get idle state.\n", "UI hierchary dumped to: /dev/tty\n",
		"<?xml version='1.0'?><hierarchy rotation=\"0\"><node"} {
		if got, err := stripUIDump(out); !errors.Is(err, ErrCommandFailed) {
			t.Errorf("stripUIDump(%q) = %q, %v; want ErrCommandFailed", out, got, err)
		}
	}
}

func TestParseDeviceList(t *testing.T) {
	got := parseDeviceList("emulator-5554\tdevice\n127.0.0.1:40001\toffline\nR58M\tunauthorized\n" +
		"0123\tno permissions (missing udev rules? user is in the plugdev group); see [http://developer.android.com/tools/device.html]\n\nbad line\n")
	want := map[string]string{"emulator-5554": "device", "127.0.0.1:40001": "offline", "R58M": "unauthorized",
		"0123": "no permissions (missing udev rules? user is in the plugdev group); see [http://developer.android.com/tools/device.html]"}
	if !maps.Equal(got, want) {
		t.Errorf("parseDeviceList = %v, want %v", got, want)
	}
}

// readAnswer returns exactly what was sent, whatever the size function says, and one byte
// past the limit so that the caller can refuse the answer.
func TestReadAnswer(t *testing.T) {
	frame := make([]byte, 16+4*3*2)
	binary.LittleEndian.PutUint32(frame, 3)
	binary.LittleEndian.PutUint32(frame[4:], 2)
	for i := 16; i < len(frame); i++ {
		frame[i] = byte(i)
	}
	say := func(n int) func([]byte) int { return func([]byte) int { return n } }
	for _, tc := range []struct {
		name string
		in   []byte
		size func([]byte) int
	}{
		{"no size", frame, nil},
		{"framebuffer", frame, framebufferSize},
		{"framebuffer with a 12-byte header", frame[4:], framebufferSize},
		{"shorter than announced", frame[:20], say(len(frame))},
		{"longer than announced", frame, say(14)},
		{"no header", frame[:5], framebufferSize},
		{"empty", nil, framebufferSize},
		{"nonsense size", frame, say(-3)},
	} {
		got, err := readAnswer(bytes.NewReader(tc.in), 1000, tc.size)
		if err != nil || !bytes.Equal(got, tc.in) {
			t.Errorf("%s: %d bytes, %v; want the %d sent", tc.name, len(got), err, len(tc.in))
		}
	}
	got, err := readAnswer(bytes.NewReader(frame), 20, framebufferSize)
	if err != nil || len(got) != 21 {
		t.Errorf("over the limit: %d bytes, %v; want 21 (limit+1)", len(got), err)
	}
}
