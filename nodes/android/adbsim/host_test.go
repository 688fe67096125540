package adbsim

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"net"
	"strings"
	"testing"
	"time"
)

// host is a minimal adb host in the test: it dials a device, shakes hands and opens services,
// one at a time, checking the device's side of the protocol as it goes.
type host struct {
	t       *testing.T
	nc      net.Conn
	r       *bufio.Reader
	version uint32
	maxData uint32
	banner  string
	nextID  uint32
}

func dialHost(t *testing.T, d *Device, version, maxData uint32) *host {
	t.Helper()
	nc, err := net.Dial("tcp", d.Addr())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = nc.Close() })
	h := &host{t: t, nc: nc, r: bufio.NewReader(nc), nextID: 100, version: version}
	h.send(packet{cmd: cmdCNXN, arg0: version, arg1: maxData, data: []byte("host::features=shell_v2,cmd\x00")})
	p := h.recv()
	if p.cmd != cmdCNXN {
		t.Fatalf("handshake answer %v", p)
	}
	h.version, h.maxData, h.banner = p.arg0, p.arg1, string(p.data)
	return h
}

func (h *host) send(p packet) {
	h.t.Helper()
	hdr := p.header(h.version < versionSkipChecksum) // modern hosts send 0
	if _, err := h.nc.Write(append(hdr, p.data...)); err != nil {
		h.t.Fatal(err)
	}
}

func (h *host) recv() packet {
	h.t.Helper()
	_ = h.nc.SetReadDeadline(time.Now().Add(5 * time.Second))
	p, err := decodePacket(h.r, maxPacketData)
	if err != nil {
		h.t.Fatalf("reading a packet: %v", err)
	}
	// The device sums the payload for old hosts only, its CNXN answer included, as adbd does.
	want := uint32(0)
	if h.version < versionSkipChecksum {
		want = checksum(p.data)
	}
	if p.check != want {
		h.t.Fatalf("%v: checksum %d, want %d (protocol version 0x%08x)", p, p.check, want, h.version)
	}
	return p
}

// open opens a service; ok is false if the device refused it.
func (h *host) open(service string) (local, remote uint32, ok bool) {
	h.t.Helper()
	h.nextID++
	h.send(packet{cmd: cmdOPEN, arg0: h.nextID, data: []byte(service + "\x00")})
	p := h.recv()
	switch {
	case p.cmd == cmdCLSE && p.arg0 == 0 && p.arg1 == h.nextID:
		return h.nextID, 0, false
	case p.cmd != cmdOKAY || p.arg1 != h.nextID:
		h.t.Fatalf("OPEN %s answered %v", service, p)
	}
	return h.nextID, p.arg0, true
}

// drain reads a stream to its CLSE, acknowledging each WRTE, and returns what it carried.
func (h *host) drain(local, remote uint32) []byte {
	h.t.Helper()
	var out bytes.Buffer
	for {
		p := h.recv()
		if p.arg0 != remote || p.arg1 != local {
			h.t.Fatalf("packet %v for another stream (want %d, %d)", p, remote, local)
		}
		switch p.cmd {
		case cmdWRTE:
			if uint32(len(p.data)) > h.maxData {
				h.t.Fatalf("WRTE of %d bytes, over the negotiated %d", len(p.data), h.maxData)
			}
			out.Write(p.data)
			h.send(packet{cmd: cmdOKAY, arg0: local, arg1: remote})
		case cmdCLSE:
			h.send(packet{cmd: cmdCLSE, arg0: local, arg1: remote})
			return out.Bytes()
		default:
			h.t.Fatalf("unexpected %v", p)
		}
	}
}

func (h *host) shell(cmd string) string {
	h.t.Helper()
	local, remote, ok := h.open("shell:" + cmd)
	if !ok {
		h.t.Fatalf("shell:%s refused", cmd)
	}
	return string(h.drain(local, remote))
}

// The shell,v2 service frames the output and ends with the exit status.
func TestShellV2(t *testing.T) {
	d := newDevice(t)
	h := dialHost(t, d, versionSkipChecksum, 1<<20)
	for _, tc := range []struct {
		cmd    string
		out    string
		status byte
	}{
		{"echo hi", "hi\n", 0},
		{"input tap 1 1", "", 0},
		{"false", "", 1},
		{"echo 'unterminated", "", 2},
	} {
		local, remote, ok := h.open("shell,v2,raw:" + tc.cmd)
		if !ok {
			t.Fatalf("shell,v2,raw:%s refused", tc.cmd)
		}
		got := h.drain(local, remote)
		var want []byte
		if tc.out != "" {
			want = append([]byte{1, byte(len(tc.out)), 0, 0, 0}, tc.out...)
		}
		want = append(want, 3, 1, 0, 0, 0, tc.status)
		if tc.status == 2 { // the syntax error's text goes first
			if len(got) < 6 || got[0] != 1 || !bytes.HasSuffix(got, []byte{3, 1, 0, 0, 0, 2}) {
				t.Errorf("%s: got %q, want an output packet and exit status 2", tc.cmd, got)
			}
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: got %q, want %q", tc.cmd, got, want)
		}
	}
}

// write sends data on a stream and waits for the device's OKAY.
func (h *host) write(local, remote uint32, data []byte) {
	h.t.Helper()
	h.send(packet{cmd: cmdWRTE, arg0: local, arg1: remote, data: data})
	if p := h.recv(); p.cmd != cmdOKAY || p.arg0 != remote || p.arg1 != local {
		h.t.Fatalf("WRTE answered %v", p)
	}
}

func TestHandshake(t *testing.T) {
	d := newDevice(t, WithModel("Test Model"))
	h := dialHost(t, d, versionSkipChecksum, 1<<20)
	if h.version != versionSkipChecksum || h.maxData != deviceMaxData {
		t.Errorf("CNXN version 0x%x maxdata %d", h.version, h.maxData)
	}
	for _, part := range []string{"device::", "ro.product.model=Test Model;", "ro.product.name=corral_sim;", "features="} {
		if !strings.Contains(h.banner, part) {
			t.Errorf("banner %q lacks %q", h.banner, part)
		}
	}
	if !strings.Contains(h.banner, "shell_v2") || strings.Contains(h.banner, "delayed_ack") {
		t.Errorf("banner %q: want shell_v2 and no delayed_ack (which the device does not speak)", h.banner)
	}
	// An old host: a smaller version and payload, and checksums on every packet.
	old := dialHost(t, d, versionMin, 4096)
	if old.version != versionMin || old.maxData != 4096 {
		t.Errorf("old host: version 0x%x maxdata %d", old.version, old.maxData)
	}
	if got := old.shell("wm size"); got != "Physical size: 1080x2400\n" {
		t.Errorf("old host wm size: %q", got)
	}
}

func TestStreams(t *testing.T) {
	d := newDevice(t)
	h := dialHost(t, d, versionSkipChecksum, 8192)
	if _, _, ok := h.open("reboot:"); ok {
		t.Error("reboot: was not refused")
	}
	if got := h.shell(""); !strings.Contains(got, "no interactive shell") {
		t.Errorf("shell: with no command answered %q", got)
	}
	// 1080x2400 raw is over 10 MB: hundreds of WRTEs of at most 8 KiB, each acknowledged.
	local, remote, _ := h.open("exec:screencap")
	raw := h.drain(local, remote)
	if w, ht := binary.LittleEndian.Uint32(raw), binary.LittleEndian.Uint32(raw[4:]); w != 1080 || ht != 2400 || len(raw) != 16+4*1080*2400 {
		t.Errorf("raw screencap: %dx%d, %d bytes", w, ht, len(raw))
	}
	if got := d.Commands(); len(got) != 1 || got[0] != "screencap" {
		t.Errorf("Commands() = %q", got)
	}
}

func TestSync(t *testing.T) {
	d := newDevice(t)
	h := dialHost(t, d, versionSkipChecksum, 1<<20)
	local, remote, _ := h.open("sync:")
	req := func(id string, arg string) []byte {
		return append(syncHeader(id, uint32(len(arg))), arg...)
	}
	reply := func(n int) []byte {
		p := h.recv()
		if p.cmd != cmdWRTE {
			t.Fatalf("sync reply %v", p)
		}
		h.send(packet{cmd: cmdOKAY, arg0: local, arg1: remote})
		if len(p.data) != n && n >= 0 {
			t.Fatalf("sync reply %q, want %d bytes", p.data, n)
		}
		return p.data
	}
	// SEND in one write, as adb does for small files: request, two DATA chunks, DONE.
	var b bytes.Buffer
	b.Write(req(syncSEND, "/data/local/tmp/a.apk,0644"))
	b.Write(req(syncDATA, "PK\x03\x04"))
	b.Write(req(syncDATA, "rest"))
	b.Write(syncHeader(syncDONE, 1_700_000_000))
	h.write(local, remote, b.Bytes())
	if got := reply(8); string(got[:4]) != syncOKAY {
		t.Fatalf("SEND answered %q", got)
	}
	f, ok := d.File("/data/local/tmp/a.apk")
	if !ok || string(f.Data) != "PK\x03\x04rest" || f.Mode != modeFile|0o644 || f.MTime.Unix() != 1_700_000_000 {
		t.Fatalf("pushed file %+v %v", f, ok)
	}
	h.write(local, remote, req(syncSTAT, "/data/local/tmp/a.apk"))
	if got := reply(16); binary.LittleEndian.Uint32(got[4:]) != modeFile|0o644 || binary.LittleEndian.Uint32(got[8:]) != 8 {
		t.Errorf("STAT answered %x", got)
	}
	h.write(local, remote, req(syncSTAT, "/data/local/tmp/"))
	if got := reply(16); binary.LittleEndian.Uint32(got[4:])&modeType != modeDir {
		t.Errorf("STAT of a directory answered %x", got)
	}
	h.write(local, remote, req(syncSTAT, "/nope"))
	if got := reply(16); !bytes.Equal(got, syncHeader(syncSTAT, 0, 0, 0)) {
		t.Errorf("STAT of nothing answered %x", got)
	}
	// A read-only target fails after DONE, and the session goes on.
	b.Reset()
	b.Write(req(syncSEND, "/system/x,33188"))
	b.Write(req(syncDATA, "x"))
	b.Write(syncHeader(syncDONE, 0))
	h.write(local, remote, b.Bytes())
	if got := reply(-1); string(got[:4]) != syncFAIL || !strings.Contains(string(got), "Read-only file system") {
		t.Errorf("SEND to /system answered %q", got)
	}
	h.write(local, remote, syncHeader(syncQUIT, 0))
	if p := h.recv(); p.cmd != cmdCLSE {
		t.Errorf("QUIT answered %v", p)
	}
	// A zip with no manifest is no APK: pm install refuses it as a phone does.
	if got := h.shell("pm install -r /data/local/tmp/a.apk"); !strings.HasPrefix(got, "Failure [INSTALL_FAILED_INVALID_APK: Failed to parse /data/local/tmp/a.apk") {
		t.Errorf("pm install: %q", got)
	}
	if got := d.Installed(); len(got) != 0 {
		t.Errorf("Installed() = %q", got)
	}
}

func TestProtocolErrorsDropTheConnection(t *testing.T) {
	d := newDevice(t)
	h := dialHost(t, d, versionSkipChecksum, 1<<20)
	bad := packet{cmd: cmdOPEN, arg0: 1, data: []byte("shell:id\x00")}.header(true)
	bad[20] ^= 0xff
	if _, err := h.nc.Write(bad); err != nil {
		t.Fatal(err)
	}
	_ = h.nc.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := h.r.ReadByte(); err == nil {
		t.Error("the device kept a connection that sent a bad magic")
	}
	// The device itself is fine.
	if got := dialHost(t, d, versionSkipChecksum, 1<<20).shell("echo ok"); got != "ok\n" {
		t.Errorf("after a bad connection: %q", got)
	}
}

func TestDelayCancelledByClose(t *testing.T) {
	d := newDevice(t)
	d.SetDelay(time.Hour)
	h := dialHost(t, d, versionSkipChecksum, 1<<20)
	local, remote, _ := h.open("shell:input tap 1 1")
	if err := waitFor(func() bool { return len(d.Commands()) == 1 }); err != nil {
		t.Fatal("the command never arrived")
	}
	h.send(packet{cmd: cmdCLSE, arg0: local, arg1: remote})
	d.SetDelay(0)
	if got := h.shell("echo next"); got != "next\n" {
		t.Errorf("after closing a slow command: %q", got)
	}
	if log := d.Phone().InputLog(); len(log) != 0 {
		t.Errorf("the closed command still ran: %q", log)
	}
}

func TestKillRestart(t *testing.T) {
	d := newDevice(t)
	h := dialHost(t, d, versionSkipChecksum, 1<<20)
	h.shell("wm size 720x1600")
	d.Kill()
	_ = h.nc.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := h.r.ReadByte(); err == nil {
		t.Error("Kill left the connection open")
	}
	if _, err := net.DialTimeout("tcp", d.Addr(), time.Second); err == nil {
		t.Error("Kill left the port listening")
	}
	if err := d.Restart(); err != nil {
		t.Fatal(err)
	}
	if got := dialHost(t, d, versionSkipChecksum, 1<<20).shell("wm size"); !strings.Contains(got, "Override size: 720x1600") {
		t.Errorf("state after restart: %q", got)
	}
	_ = d.Close()
	if err := d.Restart(); err != ErrClosed {
		t.Errorf("Restart after Close: %v", err)
	}
}
