package iossim

import (
	"encoding/binary"
	"net"
	"slices"
	"strings"
	"testing"

	ios "github.com/danielpaulus/go-ios/ios"
)

func TestListDevices(t *testing.T) {
	h := startHost(t)
	withGoIOS(t, h)
	d1 := newDevice(t, Config{})
	d2 := newDevice(t, Config{UDID: "00008030-000A11CE0000B0B0"})
	h.Attach(d1)
	h.Attach(d2)
	h.Attach(d2) // attached already: nothing changes

	list, err := ios.ListDevices()
	if err != nil {
		t.Fatal(err)
	}
	if len(list.DeviceList) != 2 {
		t.Fatalf("ListDevices: %d devices, want 2: %+v", len(list.DeviceList), list)
	}
	ids := map[string]int{}
	for _, e := range list.DeviceList {
		p := e.Properties
		if e.MessageType != "Attached" || p.ConnectionType != "USB" || p.DeviceID != e.DeviceID || p.ProductID == 0 || p.LocationID == 0 {
			t.Errorf("device entry %+v: want MessageType Attached, USB, Properties.DeviceID = DeviceID, product and location ids", e)
		}
		ids[p.SerialNumber] = e.DeviceID
	}
	if ids[d1.UDID()] == 0 || ids[d2.UDID()] == 0 || ids[d1.UDID()] == ids[d2.UDID()] {
		t.Fatalf("device ids %v: want both UDIDs with distinct ids", ids)
	}
	if !strings.HasPrefix(d1.UDID(), "00008030-") || len(d1.UDID()) != 25 {
		t.Errorf("default UDID %q: want 00008030-XXXXXXXXXXXXXXXX", d1.UDID())
	}

	// A device replugged gets a new id, as usbmuxd gives.
	h.Detach(d2.UDID())
	h.Detach("no-such-udid")
	if list, _ := ios.ListDevices(); len(list.DeviceList) != 1 || list.DeviceList[0].Properties.SerialNumber != d1.UDID() {
		t.Fatalf("after Detach: %+v, want only %s", list, d1.UDID())
	}
	h.Attach(d2)
	if e := entry(t, d2.UDID()); e.DeviceID == ids[d2.UDID()] {
		t.Errorf("reattached device kept id %d, want a new one", e.DeviceID)
	}
}

// TestListen uses go-ios's Listen: Attached for present devices, then as they come and go.
func TestListen(t *testing.T) {
	h := startHost(t)
	withGoIOS(t, h)
	d1 := newDevice(t, Config{})
	d2 := newDevice(t, Config{Untrusted: true})
	h.Attach(d1)
	h.Attach(d2)

	next, closeListen, err := ios.Listen()
	if err != nil {
		t.Fatal(err)
	}
	defer closeListen()
	recv := func(what string) ios.AttachedMessage {
		t.Helper()
		m := within(t, what, func() ios.AttachedMessage {
			m, err := next()
			if err != nil {
				t.Errorf("%s: %v", what, err)
			}
			return m
		})
		return m
	}
	for _, d := range []*Device{d1, d2} {
		if m := recv("Attached for a present device"); !m.DeviceAttached() || m.Properties.SerialNumber != d.UDID() {
			t.Fatalf("message %+v, want Attached %s", m, d.UDID())
		}
	}
	h.Detach(d2.UDID())
	det := recv("Detached")
	if !det.DeviceDetached() || det.DeviceID == 0 {
		t.Fatalf("message %+v, want Detached with a DeviceID", det)
	}
	h.Attach(d2)
	m := recv("Attached for a device plugged in")
	if !m.DeviceAttached() || m.Properties.SerialNumber != d2.UDID() || m.DeviceID == det.DeviceID || m.DeviceEntry().DeviceID != m.DeviceID {
		t.Fatalf("message %+v, want Attached %s with a new id", m, d2.UDID())
	}
	d2.Trust()
	if p := recv("Paired after Trust"); p.MessageType != "Paired" || p.DeviceID != m.DeviceID {
		t.Fatalf("message %+v, want Paired for device %d", p, m.DeviceID)
	}
}

// TestListenRaw reads Listen's messages as plists: a Detached carries only the DeviceID, and
// every notice has tag 0 while the result has the request's tag.
func TestListenRaw(t *testing.T) {
	h := startHost(t)
	d := newDevice(t, Config{})
	mux := dialMux(t, h)
	if err := mux.Send(ios.NewListen()); err != nil {
		t.Fatal(err)
	}
	res := within(t, "Listen result", func() ios.UsbMuxMessage { m, _ := mux.ReadMessage(); return m })
	if res.Header.Tag != 1 || !ios.MuxResponsefromBytes(res.Payload).IsSuccessFull() {
		t.Fatalf("Listen result %+v (%s), want tag 1 and Number 0", res.Header, res.Payload)
	}
	h.Attach(d)
	h.Detach(d.UDID())
	for _, want := range []string{"Attached", "Detached"} {
		msg := within(t, want, func() ios.UsbMuxMessage { m, _ := mux.ReadMessage(); return m })
		m, err := ios.ParsePlist(msg.Payload)
		if err != nil {
			t.Fatal(err)
		}
		if m["MessageType"] != want || msg.Header.Tag != 0 || msg.Header.Version != 1 || msg.Header.Request != 8 {
			t.Fatalf("notice %+v %v, want %s with tag 0, version 1, plist", msg.Header, m, want)
		}
		if want == "Detached" && len(m) != 2 {
			t.Errorf("Detached %v: want only MessageType and DeviceID", m)
		}
	}
}

func TestRestart(t *testing.T) {
	h := startHost(t)
	withGoIOS(t, h)
	d := newDevice(t, Config{})
	h.Attach(d)
	next, closeListen, err := ios.Listen()
	if err != nil {
		t.Fatal(err)
	}
	defer closeListen()
	if _, err := next(); err != nil {
		t.Fatal(err)
	}
	lockdown, err := dialMux(t, h).ConnectLockdown(entry(t, d.UDID()).DeviceID)
	if err != nil {
		t.Fatal(err)
	}

	if err := h.Restart(); err != nil {
		t.Fatal(err)
	}
	if err := within(t, "Listen read after Restart", func() error { _, err := next(); return err }); err == nil {
		t.Fatal("Listen read after Restart succeeded, want an error")
	}
	expectClosed(t, lockdown.Conn(), "a lockdown connection across Restart")

	next2, closeListen2, err := ios.Listen()
	if err != nil {
		t.Fatalf("Listen after Restart: %v", err)
	}
	defer closeListen2()
	if m, err := next2(); err != nil || m.Properties.SerialNumber != d.UDID() {
		t.Fatalf("Listen after Restart: %+v, %v; want the attached device", m, err)
	}
	if got := entry(t, d.UDID()); got.Properties.SerialNumber != d.UDID() {
		t.Fatal("ListDevices after Restart lost the device")
	}
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	if err := h.Restart(); err != ErrClosed {
		t.Fatalf("Restart after Close: %v, want ErrClosed", err)
	}
}

// TestMuxResults checks usbmuxd's answers to what it cannot do, each with the request's tag.
func TestMuxResults(t *testing.T) {
	h := startHost(t)
	d := newDevice(t, Config{})
	h.Attach(d)
	mux := dialMux(t, h)

	ask := func(msg any, wantTag uint32) ios.MuxResponse {
		t.Helper()
		if err := mux.Send(msg); err != nil {
			t.Fatal(err)
		}
		m := within(t, "usbmuxd answer", func() ios.UsbMuxMessage { m, _ := mux.ReadMessage(); return m })
		if m.Header.Tag != wantTag {
			t.Errorf("answer tag %d, want %d", m.Header.Tag, wantTag)
		}
		return ios.MuxResponsefromBytes(m.Payload)
	}
	if r := ask(map[string]any{"MessageType": "Frobnicate"}, 1); r.Number != resultBadCommand {
		t.Errorf("unknown MessageType: Number %d, want %d", r.Number, resultBadCommand)
	}
	if r := ask(map[string]any{"MessageType": "Connect", "DeviceID": 99, "PortNumber": ios.Ntohs(62078)}, 2); r.Number != resultBadDevice {
		t.Errorf("Connect to an unknown device: Number %d, want %d", r.Number, resultBadDevice)
	}
	if r := ask(map[string]any{"MessageType": "ReadPairRecord", "PairRecordID": "nope"}, 3); r.Number != resultBadDevice {
		t.Errorf("ReadPairRecord of an unknown device: Number %d, want %d", r.Number, resultBadDevice)
	}
	buid, err := mux.ReadBuid()
	if err != nil || len(buid) != 36 {
		t.Errorf("ReadBuid: %q, %v; want a UUID", buid, err)
	}
	err = mux.Connect(entry2(t, mux, d.UDID()), 1234)
	if err == nil || !strings.Contains(err.Error(), "error code:3") {
		t.Errorf("Connect to a closed port: %v, want error code 3 (refused)", err)
	}

	// A header of another protocol version gets BadVersion; an absurd length closes.
	c, err := net.Dial("tcp", h.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	hdr := binary.LittleEndian.AppendUint32(nil, 16)
	hdr = binary.LittleEndian.AppendUint32(hdr, 0) // binary protocol
	hdr = binary.LittleEndian.AppendUint32(hdr, 8)
	hdr = binary.LittleEndian.AppendUint32(hdr, 7)
	if _, err := c.Write(hdr); err != nil {
		t.Fatal(err)
	}
	raw := ios.NewUsbMuxConnection(ios.NewDeviceConnectionWithConn(c))
	m := within(t, "BadVersion", func() ios.UsbMuxMessage { m, _ := raw.ReadMessage(); return m })
	if r := ios.MuxResponsefromBytes(m.Payload); r.Number != resultBadVersion || m.Header.Tag != 7 {
		t.Errorf("version 0: %+v tag %d, want Number %d tag 7", r, m.Header.Tag, resultBadVersion)
	}
	if _, err := c.Write([]byte{0xFF, 0xFF, 0xFF, 0x7F, 1, 0, 0, 0, 8, 0, 0, 0, 1, 0, 0, 0}); err != nil {
		t.Fatal(err)
	}
	expectClosed(t, c, "a connection announcing a 2 GiB message")
}

// entry2 finds a device id over an explicit connection, without the environment.
func entry2(t *testing.T, mux *ios.UsbMuxConnection, udid string) int {
	t.Helper()
	list, err := mux.ListDevices()
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(list.DeviceList, func(e ios.DeviceEntry) bool { return e.Properties.SerialNumber == udid })
	if i < 0 {
		t.Fatalf("no %s in %+v", udid, list)
	}
	return list.DeviceList[i].DeviceID
}
