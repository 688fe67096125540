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
