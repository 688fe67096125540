package rig

import (
	"strings"
	"testing"
	"time"
)

const goodRig = `rigs:
  - serial: bench-arm-1
    model: iPhone 13
    grbl: /dev/ttyUSB0
    baud: 115200
    camera: /dev/video0
    readback: http://10.0.0.9:8090/calibration
    screen_area: [40, 20, 110, 170]
    link_timeout: 5s
    clipboard: {command: [pbcopy]}
  - serial: bench-arm-2
    grbl: tcp://fluidnc.local:23
    camera: http://cam.local/stream
    readback: http://cam.local/calibration
    screen_area: [110, 170, 40, 20]
    clipboard:
      url: http://phone.local:8091/clipboard
`

func TestParseRigs(t *testing.T) {
	rigs, err := ParseRigs([]byte(goodRig))
	if err != nil {
		t.Fatal(err)
	}
	if len(rigs) != 2 || rigs[0].Serial != "bench-arm-1" || rigs[0].LinkTimeout != 5*time.Second || rigs[1].GRBL != "tcp://fluidnc.local:23" {
		t.Fatalf("rigs = %+v", rigs)
	}
	if h, ok := rigs[0].Clipboard.helper().(CommandClipboard); !ok || h.Args[0] != "pbcopy" {
		t.Errorf("clipboard of rig 1: %#v, want the command pbcopy", rigs[0].Clipboard.helper())
	}
	if h, ok := rigs[1].Clipboard.helper().(HTTPClipboard); !ok || h.URL != "http://phone.local:8091/clipboard" {
		t.Errorf("clipboard of rig 2: %#v, want the helper app's URL", rigs[1].Clipboard.helper())
	}
	a, err := rigs[1].area()
	if err != nil || a.Min.X != 40 || a.Min.Y != 20 || a.Max.X != 110 || a.Max.Y != 170 {
		t.Fatalf("area of corners given the other way round: %+v, %v", a, err)
	}
}

func TestParseRigsRefuses(t *testing.T) {
	for _, c := range []struct{ name, doc, want string }{
		{"empty", "", "rigs file"},
		{"no rigs", "rigs: []\n", "no rigs"},
		{"unknown field", strings.Replace(goodRig, "baud:", "bauds:", 1), "bauds"},
		{"no serial", strings.Replace(goodRig, "serial: bench-arm-1", "serial: ''", 1), "serial: name the rig"},
		{"same serial", strings.Replace(goodRig, "bench-arm-2", "bench-arm-1", 1), "taken by another rig"},
		{"no grbl", strings.Replace(goodRig, "grbl: /dev/ttyUSB0", "grbl: ''", 1), "grbl:"},
		{"camera", strings.Replace(goodRig, "camera: /dev/video0", "camera: video0", 1), "camera \"video0\""},
		{"readback", strings.Replace(goodRig, "readback: http://10.0.0.9:8090/calibration", "readback: page", 1), "readback \"page\""},
		{"area count", strings.Replace(goodRig, "[40, 20, 110, 170]", "[40, 20, 110]", 1), "3 numbers given"},
		{"area small", strings.Replace(goodRig, "[40, 20, 110, 170]", "[40, 20, 45, 25]", 1), "at least 20 mm"},
		{"area NaN", strings.Replace(goodRig, "[40, 20, 110, 170]", "[.nan, 20, 110, 170]", 1), "numbers only"},
		{"timeout", strings.Replace(goodRig, "link_timeout: 5s", "link_timeout: 1h", 1), "link_timeout"},
		{"baud", strings.Replace(goodRig, "baud: 115200", "baud: -1", 1), "baud -1"},
		{"clipboard both", strings.Replace(goodRig, "{command: [pbcopy]}", "{command: [pbcopy], url: http://x/}", 1), "url or command, not both"},
		{"clipboard url", strings.Replace(goodRig, "url: http://phone.local:8091/clipboard", "url: phone.local", 1), `clipboard url "phone.local"`},
		{"clipboard command", strings.Replace(goodRig, "[pbcopy]", "['']", 1), "the program first"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseRigs([]byte(c.doc))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one saying %q", err, c.want)
			}
		})
	}
}

// A rigs file's mistakes are told in the file's words, with their lines: no Go type
// (rig.rigsFile, time.Duration) and no EOF.
func TestParseRigsSaysMistakesInTheFilesWords(t *testing.T) {
	for _, c := range []struct {
		name, doc string
		want      []string
	}{
		{"empty", "", []string{"rigs file: the file is empty", "docs/arm.md shows one"}},
		{"only comments", "# rigs to come\n", []string{"the file is empty"}},
		{"unknown key at the top", "nonsense: 1\n" + goodRig, []string{`line 1: unknown key "nonsense" (the keys are: rigs)`}},
		{"unknown key in a rig", strings.Replace(goodRig, "baud:", "nonsense:", 1),
			[]string{`line 5: unknown key "nonsense" (the keys are: serial, model, grbl, baud, link_timeout, camera, readback, screen_area, clipboard)`}},
		{"unknown key in a clipboard", strings.Replace(goodRig, "url: http", "urls: http", 1), []string{`unknown key "urls" (the keys are: url, command)`}},
		{"not a duration", strings.Replace(goodRig, "link_timeout: 5s", "link_timeout: forever", 1),
			[]string{`line 9: link_timeout: "forever" is not a duration (like 80ms`}},
		{"a number for a duration", strings.Replace(goodRig, "link_timeout: 5s", "link_timeout: 5", 1), []string{`link_timeout: "5" is not a duration`}},
		{"not a whole number", strings.Replace(goodRig, "baud: 115200", "baud: fast", 1), []string{`line 5: baud: "fast" is not a whole number`}},
		{"not a list", strings.Replace(goodRig, "[40, 20, 110, 170]", "40", 1), []string{`screen_area: "40" is not a list`}},
		{"not a number", strings.Replace(goodRig, "[40, 20, 110, 170]", "[40, x, 110, 170]", 1), []string{`screen_area: "x" is not a number`}},
		{"every mistake", strings.Replace(strings.Replace(goodRig, "baud:", "bauds:", 1), "link_timeout: 5s", "link_timeout: soon", 1),
			[]string{`unknown key "bauds"`, `"soon" is not a duration`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseRigs([]byte(c.doc))
			if err == nil {
				t.Fatal("accepted")
			}
			for _, w := range append(c.want, "rigs file: ") {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			for _, internal := range []string{"rig.", "rigsFile", "time.Duration", "EOF", "!!str", "not found in type", "unmarshal"} {
				if strings.Contains(err.Error(), internal) {
					t.Errorf("error %q speaks of %q", err, internal)
				}
			}
		})
	}
}

func FuzzParseRigs(f *testing.F) {
	f.Add([]byte(goodRig))
	f.Add([]byte("rigs:\n  - serial: a\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		rigs, err := ParseRigs(data)
		if err != nil {
			return
		}
		for _, r := range rigs {
			if r.check() != nil {
				t.Fatalf("a rig that fails its check was accepted: %+v", r)
			}
		}
	})
}

// A rig's grbl is tcp://host:port or a serial device's path: another scheme, or a path that
// is none, is refused with its line and what to give (ftp://x was opened as a serial path and
// retried every 5 s).
func TestParseRigsRefusesAControllerItCannotOpen(t *testing.T) {
	for _, c := range []struct{ grbl, want string }{
		{"ftp://x", `line 4: grbl "ftp://x": ftp:// is no way to a controller; give tcp://host:port`},
		{"http://fluidnc.local", `line 4: grbl "http://fluidnc.local": http:// is no way`},
		{"tcp://fluidnc.local", `line 4: grbl "tcp://fluidnc.local": give the controller's host and port, e.g. tcp://fluidnc.local:23`},
		{"tcp://:23", `give the controller's host and port`},
		{"tcp://fluidnc.local:99999", `give the controller's host and port`},
		{"ttyUSB0", `line 4: grbl "ttyUSB0": give tcp://host:port (FluidNC's raw port) or a serial device's path such as /dev/ttyUSB0`},
	} {
		_, err := ParseRigs([]byte(strings.Replace(goodRig, "grbl: /dev/ttyUSB0", "grbl: "+c.grbl, 1)))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("grbl %s: error %v, want one saying %q", c.grbl, err, c.want)
		}
	}
	for _, grbl := range []string{"/dev/ttyUSB0", "/dev/serial/by-id/usb-1a86_USB2.0-Serial-if00-port0", "tcp://10.0.0.5:23", "tcp://[::1]:2323"} {
		if _, err := ParseRigs([]byte(strings.Replace(goodRig, "grbl: /dev/ttyUSB0", "grbl: "+grbl, 1))); err != nil {
			t.Errorf("grbl %s refused: %v", grbl, err)
		}
	}
}
