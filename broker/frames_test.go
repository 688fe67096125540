package broker

import (
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
)

func TestFrameRoundTrip(t *testing.T) {
	at := time.Date(2026, 5, 1, 10, 0, 0, 123, time.UTC)
	f := Frame{Node: "n1", Serial: "192.168.1.5:5555", Seq: 7, Width: 360, Height: 800, Captured: at, JPEG: []byte{0xff, 0xd8, 1}}
	m := f.Msg()
	if m.Subject != "corral.v1.frames.n1.192=2E168=2E1=2E5=3A5555" {
		t.Fatalf("subject %s", m.Subject)
	}
	got, err := ParseFrame(m)
	if err != nil || got.Node != f.Node || got.Serial != f.Serial || got.Seq != 7 || got.Width != 360 || got.Height != 800 ||
		!got.Captured.Equal(at) || string(got.JPEG) != string(f.JPEG) {
		t.Fatalf("%+v, %v", got, err)
	}
}

// A frame names its device twice, in its subject (which only its node may publish on) and in a
// header: they must agree, or the frame would show as another device's.
func TestParseFrameRefuses(t *testing.T) {
	good := func() *nats.Msg {
		return Frame{Node: "n1", Serial: "p1", Seq: 1, Width: 1, Height: 1, Captured: time.Now(), JPEG: []byte{1}}.Msg()
	}
	for name, spoil := range map[string]func(*nats.Msg){
		"another serial":  func(m *nats.Msg) { m.Header.Set(hdrSerial, "p2") },
		"not frames":      func(m *nats.Msg) { m.Subject = "corral.v1.events.task.n1.p1" },
		"no node":         func(m *nats.Msg) { m.Subject = "corral.v1.frames..p1" },
		"too deep":        func(m *nats.Msg) { m.Subject = "corral.v1.frames.n1.p1.x" },
		"no size":         func(m *nats.Msg) { m.Header.Del(hdrWidth) },
		"zero size":       func(m *nats.Msg) { m.Header.Set(hdrHeight, "0") },
		"no time":         func(m *nats.Msg) { m.Header.Set(hdrCaptured, "yesterday") },
		"no image":        func(m *nats.Msg) { m.Data = nil },
		"negative number": func(m *nats.Msg) { m.Header.Set(hdrSeq, "-1") },
	} {
		m := good()
		spoil(m)
		if f, err := ParseFrame(m); err == nil {
			t.Errorf("%s: parsed %+v", name, f)
		}
	}
	for id, ok := range map[string]bool{"gw_0a1b": true, "": false, "a.b": false, "a=b": false, strings.Repeat("a", 65): false, "a b": false} {
		if ValidWatcher(id) != ok {
			t.Errorf("ValidWatcher(%q) = %v", id, !ok)
		}
	}
}

func FuzzParseFrame(f *testing.F) {
	f.Add("corral.v1.frames.n1.p1", "p1", "1", "360", "800", "2026-05-01T10:00:00Z", []byte{1})
	f.Add("corral.v1.frames.n1.a=2Eb", "a.b", "18446744073709551615", "-1", "x", "", []byte{})
	f.Fuzz(func(t *testing.T, subject, serial, seq, w, h, at string, data []byte) {
		m := nats.NewMsg(subject)
		m.Header.Set(hdrSerial, serial)
		m.Header.Set(hdrSeq, seq)
		m.Header.Set(hdrWidth, w)
		m.Header.Set(hdrHeight, h)
		m.Header.Set(hdrCaptured, at)
		m.Data = data
		fr, err := ParseFrame(m)
		if err != nil {
			return
		}
		if Token(fr.Serial) != strings.TrimPrefix(subject, Prefix+".frames."+fr.Node+".") || fr.Width <= 0 || fr.Height <= 0 || len(fr.JPEG) == 0 {
			t.Fatalf("parsed a frame that does not hold: %+v from %s", fr, subject)
		}
	})
}
