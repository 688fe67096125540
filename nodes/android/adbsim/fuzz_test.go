package adbsim

import (
	"bytes"
	"context"
	"errors"
	"io"
	"slices"
	"testing"
	"time"

	"github.com/corral-farm/corral/nodes/sim"
)

// FuzzDecodePacket feeds arbitrary bytes to the packet decoder: it never panics, never reads a
// payload over the limit, and every packet it returns encodes back to the bytes it read.
func FuzzDecodePacket(f *testing.F) {
	p := packet{cmd: cmdCNXN, arg0: versionSkipChecksum, arg1: 1 << 20, data: []byte("host::\x00")}
	f.Add(append(p.header(true), p.data...))
	f.Add(packet{cmd: cmdOKAY, arg0: 1, arg1: 2}.header(true))
	f.Add([]byte("CNXN\x01\x00\x00\x01\x00\x00\x10\x00\xff\xff\xff\xff\x00\x00\x00\x00\xbc\xb1\xa7\xb1"))
	f.Add(make([]byte, 30))
	f.Fuzz(func(t *testing.T, data []byte) {
		const limit = 4096
		r := bytes.NewReader(data)
		for {
			start := len(data) - r.Len()
			p, err := decodePacket(r, limit)
			if err != nil {
				if !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) &&
					!errors.Is(err, errBadMagic) && !errors.Is(err, errTooLarge) {
					t.Fatalf("unexpected error %v", err)
				}
				return
			}
			if len(p.data) > limit {
				t.Fatalf("payload of %d bytes passed a %d-byte limit", len(p.data), limit)
			}
			read := data[start : len(data)-r.Len()]
			enc := append(p.header(true), p.data...)
			copy(enc[16:20], read[16:20]) // the checksum is re-computed on encode; compare the rest
			if !bytes.Equal(enc, read) {
				t.Fatalf("re-encoded %x, read %x", enc, read)
			}
		}
	})
}

// FuzzParseLine checks the shell parser never panics, fails only with a syntax error, and
// never yields an empty command.
func FuzzParseLine(f *testing.F) {
	for _, s := range []string{"input text 'it'\\''s%sok'", "a && b || c; d | e", `echo "a\"b" \x #c`,
		"rm -f x </dev/null 2>&1", "echo $(x)", "'", `"`, "a\n\nb;", "2>x", "| a"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		list, err := parseLine(line)
		if err != nil {
			if _, ok := err.(*syntaxError); !ok {
				t.Fatalf("parseLine(%q): %T %v", line, err, err)
			}
			return
		}
		for _, p := range list {
			for _, c := range p.cmds {
				if len(c.args) == 0 {
					t.Fatalf("parseLine(%q) gave an empty command: %s", line, render(list))
				}
			}
		}
	})
}

// FuzzShell runs arbitrary command lines on one small device: no command panics, whatever its
// arguments, and each line finishes within its deadline.
func FuzzShell(f *testing.F) {
	for _, s := range []string{"input tap 1 2", "input swipe 1 2 3 4 5", "input keyevent 3 KEYCODE_X --longpress",
		"input text 'a%sb'", "am broadcast -a ADB_INPUT_B64 --es msg aGk=", "am broadcast -a clipper.set -e text",
		"wm size 300x400 && wm size; wm density 200", "dumpsys window | grep -iv x", "pm install -r /x", "pm list packages -3 a",
		"monkey -p", "getprop", "ime set", "uiautomator dump /sdcard/x.xml && cat /sdcard/x.xml | grep node",
		"screencap /sdcard/a.raw", "rm -rf /", "echo a >> /sdcard/b; cat < /sdcard/b", "sleep 0.001", "/system/bin/wm size", "input tap 1 2 & sleep 0.01; input tap 1 2; wait"} {
		f.Add(s)
	}
	d, err := StartDevice(context.Background(), "127.0.0.1:0", WithPhoneOptions(sim.WithSize(320, 480)), WithInputStartup(0))
	if err != nil {
		f.Fatal(err)
	}
	defer d.Close()
	f.Fuzz(func(t *testing.T, line string) {
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		_, _ = d.run(ctx, line)
		_ = d.SetRotation(len(line) % 4)
	})
}

// FuzzSync sends arbitrary bytes to the sync: service over a real connection: the device never
// panics and answers every WRTE with an OKAY, or closes the stream.
func FuzzSync(f *testing.F) {
	req := func(id, arg string) []byte { return append(syncHeader(id, uint32(len(arg))), arg...) }
	f.Add(slices.Concat(req(syncSEND, "/data/local/tmp/a,0644"), req(syncDATA, "abc"), syncHeader(syncDONE, 5)))
	f.Add(slices.Concat(req(syncSTAT, "/sdcard"), req(syncLIST, "/"), req(syncRECV, "/nope"), syncHeader(syncQUIT, 0)))
	f.Add(slices.Concat(req(syncSEND, "x,zz"), syncHeader(syncDATA, 1<<30)))
	f.Add(syncHeader(syncSEND, 1<<20))
	d, err := StartDevice(context.Background(), "127.0.0.1:0")
	if err != nil {
		f.Fatal(err)
	}
	defer d.Close()
	f.Fuzz(func(t *testing.T, data []byte) {
		h := dialHost(t, d, versionSkipChecksum, 4096)
		local, remote, _ := h.open("sync:")
		for len(data) > 0 {
			n := min(len(data), 4096)
			h.send(packet{cmd: cmdWRTE, arg0: local, arg1: remote, data: data[:n]})
			data = data[n:]
			for acked := false; !acked; {
				p := h.recv()
				switch p.cmd {
				case cmdOKAY:
					acked = true
				case cmdWRTE:
					h.send(packet{cmd: cmdOKAY, arg0: local, arg1: remote})
				case cmdCLSE:
					return
				}
			}
		}
	})
}

// FuzzInputEvents writes arbitrary bytes to the touchscreen and a key device, as 16- and
// 24-byte input_event structs: decoding and the kernel's state never panic, every whole struct
// is read, no more fingers are down than the panel has slots, and touches end after they begin.
func FuzzInputEvents(f *testing.F) {
	tap := slices.Concat(event(24, evAbs, absMTTrackingID, 1), event(24, evAbs, absMTPositionX, 5), event(24, evSyn, synReport, 0),
		event(24, evAbs, absMTTrackingID, -1), event(24, evSyn, synReport, 0))
	f.Add(tap)
	f.Add(slices.Concat(event(16, evAbs, absMTSlot, 3), event(16, evAbs, absMTTrackingID, 9), event(16, evSyn, synReport, 0), []byte{1, 2, 3}))
	f.Add(slices.Concat(event(24, evKey, 116, 1), event(24, evSyn, synReport, 0), event(24, evKey, 116, 0), event(24, evSyn, synReport, 0)))
	devs := (&Device{panelMax: [2]int32{4095, 4095}}).eventDevices()
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, size := range []int{16, 24} {
			evs, used := decodeEvents(data, size)
			if used != len(data)/size*size || len(evs) != len(data)/size {
				t.Fatalf("%d bytes: %d events from %d bytes", len(data), len(evs), used)
			}
			for _, dev := range []*eventDevice{&devs[0], &devs[1]} {
				st := newEvdevState(dev)
				now := time.Unix(0, 0)
				for _, ev := range evs {
					now = now.Add(time.Millisecond)
					touches, _ := st.feed(ev, now)
					for _, tc := range touches {
						if tc.up.Before(tc.down) || !tc.firstMove.IsZero() && (tc.firstMove.Before(tc.down) || tc.up.Before(tc.firstMove)) {
							t.Fatalf("touch %+v out of order", tc)
						}
					}
					if n := st.contacts(); n > len(st.slots) {
						t.Fatalf("%d fingers on %d slots", n, len(st.slots))
					}
				}
			}
		}
	})
}
