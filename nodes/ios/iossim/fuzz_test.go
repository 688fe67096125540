package iossim

import (
	"bytes"
	"encoding/binary"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	ios "github.com/danielpaulus/go-ios/ios"
	"howett.net/plist"
)

// fuzzDevice is one device for all fuzz inputs: making one costs RSA keys.
var fuzzDevice = sync.OnceValue(func() *Device {
	d, err := NewDevice(Config{UDID: "00008030-00000000F0220000", Apps: []App{{BundleID: "com.example.fuzz"}}})
	if err != nil {
		panic(err)
	}
	return d
})

// serveBytes feeds data to a service over an in-memory pipe, drains its answers, and waits for
// it to end once the input is over. A service that hangs or panics fails the input.
func serveBytes(t *testing.T, data []byte, serve func(c *pipeConn)) {
	client, server := net.Pipe()
	done := make(chan struct{})
	go func() {
		defer close(done)
		c := newPipeConn(server)
		defer c.Close() // as usbmuxd closes a connection its service is done with
		serve(c)
	}()
	go func() { _, _ = io.Copy(io.Discard, client) }()
	_ = client.SetWriteDeadline(time.Now().Add(5 * time.Second))
	_, _ = client.Write(data) // net.Pipe: returns once the service has read it all (or stopped)
	_ = client.Close()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the service did not end after its input closed")
	}
}

// muxBytes is a usbmuxd message as go-ios frames it.
func muxBytes(tag uint32, v any) []byte {
	var b bytes.Buffer
	_ = writeMuxMessage(&b, tag, v)
	return b.Bytes()
}

func lockdownBytes(v any) []byte {
	b, _ := ios.NewPlistCodec().Encode(v)
	return b
}

func FuzzMuxRequest(f *testing.F) {
	queryType := lockdownBytes(map[string]any{"Label": "go.ios.control", "Request": "QueryType"})
	for _, seed := range [][]byte{
		muxBytes(1, ios.NewReadDevices()),
		muxBytes(2, ios.NewListen()),
		muxBytes(3, ios.ReadPair{MessageType: "ReadPairRecord", PairRecordID: "00008030-00000000F0220000", LibUSBMuxVersion: 3}),
		muxBytes(4, map[string]any{"MessageType": "ReadBUID"}),
		muxBytes(5, ios.SavePair{MessageType: "SavePairRecord", PairRecordID: "x", PairRecordData: []byte("<plist/>")}),
		append(muxBytes(6, map[string]any{"MessageType": "Connect", "DeviceID": 1, "PortNumber": ios.Ntohs(62078)}), queryType...),
		muxBytes(7, map[string]any{"MessageType": "Connect", "DeviceID": 1, "PortNumber": ios.Ntohs(1)}),
		{16, 0, 0, 0, 0, 0, 0, 0, 8, 0, 0, 0, 1, 0, 0, 0},
		{0xFF, 0xFF, 0xFF, 0xFF, 1, 0, 0, 0, 8, 0, 0, 0, 1, 0, 0, 0},
	} {
		f.Add(seed)
	}
	f.Add(muxBytes(8, map[string]any{"MessageType": "ListDevices"})[:20])
	bin, _ := plist.Marshal(map[string]any{"MessageType": "ListDevices"}, plist.BinaryFormat)
	f.Add(append(binary.LittleEndian.AppendUint32(nil, uint32(16+len(bin))), append([]byte{1, 0, 0, 0, 8, 0, 0, 0, 9, 0, 0, 0}, bin...)...))

	h, err := Start("127.0.0.1:0", nil)
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { _ = h.Close() })
	h.Attach(fuzzDevice())
	f.Fuzz(func(t *testing.T, data []byte) {
		if hdr, payload, err := readMuxMessage(bytes.NewReader(data)); err == nil {
			if req, err := decodeMuxRequest(hdr, payload); err == nil && req.MessageType == "" {
				t.Fatal("a request without MessageType decoded")
			}
		}
		serveBytes(t, data, func(c *pipeConn) {
			mc := &muxConn{c: c}
			h.mu.Lock()
			h.conns[mc] = struct{}{}
			h.mu.Unlock()
			h.serveMux(mc)
		})
	})
}

func FuzzLockdownRequest(f *testing.F) {
	for _, v := range []any{
		map[string]any{"Label": "go.ios.control", "Request": "QueryType"},
		map[string]any{"Label": "go.ios.control", "Request": "GetValue"},
		map[string]any{"Label": "go.ios.control", "Request": "GetValue", "Key": "ProductVersion"},
		map[string]any{"Label": "go.ios.control", "Request": "GetValue", "Key": "DeveloperModeStatus", "Domain": amfiDomain},
		map[string]any{"Label": "go.ios.control", "Request": "SetValue", "Key": "Language", "Domain": "com.apple.international", "Value": "de"},
		map[string]any{"Label": "go.ios.control", "Request": "StartSession", "ProtocolVersion": "2", "HostID": "NOPE", "SystemBUID": "NOPE"},
		map[string]any{"Label": "go.ios.control", "Request": "StartService", "Service": "com.apple.afc"},
		map[string]any{"Label": "go-ios", "Request": "ValidatePair", "PairRecord": map[string]any{"HostID": "X"}},
		map[string]any{"Label": "go-ios", "Request": "Pair", "ProtocolVersion": "2", "PairRecord": map[string]any{
			"HostID": "X", "HostCertificate": []byte("-----BEGIN CERTIFICATE-----\nAA==\n-----END CERTIFICATE-----\n")}},
		map[string]any{"Request": "StopSession", "SessionID": "X"},
		map[string]any{"Request": "Goodbye"},
	} {
		f.Add(lockdownBytes(v))
		bin, _ := plist.Marshal(v, plist.BinaryFormat)
		f.Add(append(binary.BigEndian.AppendUint32(nil, uint32(len(bin))), bin...))
	}
	f.Add([]byte{0xFF, 0xFF, 0xFF, 0xFF})
	f.Add(append(binary.BigEndian.AppendUint32(nil, uint32(len(billionLaughs(40)))), billionLaughs(40)...))

	d := fuzzDevice()
	log := testLog()
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 4 {
			if req, err := decodeLockdownRequest(data[4:]); err == nil && req.Request == "" {
				t.Fatal("a request without Request decoded")
			}
		}
		serveBytes(t, data, func(c *pipeConn) { d.serveLockdown(t.Context(), c, log) })
	})
}

// afcBytes is an AFC packet as go-ios's client sends it.
func afcBytes(num, op uint64, hp, payload []byte) []byte {
	var b bytes.Buffer
	_ = writeAFCPacket(&b, afcPacket{Num: num, Op: op, HeaderPayload: hp, Payload: payload})
	return b.Bytes()
}

func FuzzAFCPacket(f *testing.F) {
	open := append(le64(3), "PublicStaging/a.ipa\x00"...)
	fd := le64(1)
	var session []byte
	for _, p := range [][]byte{
		afcBytes(1, afcOpMakeDir, []byte("PublicStaging\x00"), nil),
		afcBytes(2, afcOpFileOpen, open, nil),
		afcBytes(3, afcOpFileWrite, fd, []byte("PK\x03\x04 not much of a zip")),
		afcBytes(4, afcOpFileSeek, append(append(le64(1), le64(0)...), le64(2)...), nil),
		afcBytes(5, afcOpFileTell, fd, nil),
		afcBytes(6, afcOpFileRead, append(le64(1), le64(64)...), nil),
		afcBytes(7, afcOpFileClose, fd, nil),
		afcBytes(8, afcOpGetFileInfo, []byte("PublicStaging/a.ipa"), nil),
		afcBytes(9, afcOpReadDir, []byte("PublicStaging"), nil),
		afcBytes(10, afcOpRenamePath, []byte("PublicStaging/a.ipa\x00PublicStaging/b.ipa\x00"), nil),
		afcBytes(11, afcOpGetDevInfo, nil, nil),
		afcBytes(12, afcOpRemovePathAndContents, []byte("PublicStaging"), nil),
	} {
		f.Add(p)
		session = append(session, p...)
	}
	f.Add(session)
	f.Add(afcBytes(1, 0x99, nil, nil))
	bad := afcBytes(1, afcOpReadDir, []byte("/"), nil)
	binary.LittleEndian.PutUint64(bad[8:], 1<<62)
	f.Add(bad)

	d := fuzzDevice()
	log := testLog()
	f.Fuzz(func(t *testing.T, data []byte) {
		if p, err := readAFCPacket(bytes.NewReader(data)); err == nil {
			a := &afcConn{fs: newMemFS(1 << 20), files: map[uint64]*afcFile{}, nextFD: 1}
			if ans := a.handle(p); ans.Op == 0 {
				t.Fatal("an answer without an operation")
			}
		}
		serveBytes(t, data, func(c *pipeConn) { d.serveAFC(t.Context(), c, log) })
	})
}

func FuzzInfoPlist(f *testing.F) {
	xml, _ := plist.Marshal(map[string]any{"CFBundleIdentifier": "com.example.a", "CFBundleName": "A"}, plist.XMLFormat)
	bin, _ := plist.Marshal(map[string]any{"CFBundleIdentifier": "com.example.a", "CFBundleVersion": "1"}, plist.BinaryFormat)
	f.Add(xml)
	f.Add(bin)
	f.Add(billionLaughs(30))
	f.Fuzz(func(t *testing.T, data []byte) {
		if a, err := appFromInfoPlist(data, "A.app"); err == nil && a.bundleID == "" {
			t.Fatal("an app without a bundle id")
		}
		if _, err := appFromIPA(data); err == nil {
			t.Log("a fuzzed zip installed")
		}
	})
}

// billionLaughs is a binary plist of depth arrays, each holding the next one twice: a few
// hundred bytes that would decode to 2^depth strings.
func billionLaughs(depth int) []byte {
	b := []byte("bplist00")
	var offsets []byte
	for i := range depth {
		offsets = append(offsets, byte(len(b)))
		b = append(b, 0xA2, byte(i+1), byte(i+1))
	}
	offsets = append(offsets, byte(len(b)))
	b = append(b, 0x51, 'a')
	table := len(b)
	b = append(b, offsets...)
	trailer := make([]byte, 32)
	trailer[6], trailer[7] = 1, 1
	binary.BigEndian.PutUint64(trailer[8:], uint64(depth+1))
	binary.BigEndian.PutUint64(trailer[24:], uint64(table))
	return append(b, trailer...)
}

func TestBillionLaughsRefused(t *testing.T) {
	var v any
	if err := decodePlist(billionLaughs(3), &v); err != nil {
		t.Fatalf("a small shared plist: %v", err)
	}
	if arr, ok := v.([]any); !ok || len(arr) != 2 {
		t.Fatalf("decoded %v, want a 2-element array (is the test plist well formed?)", v)
	}
	done := make(chan error, 1)
	go func() { done <- decodePlist(billionLaughs(60), &v) }()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("a plist expanding to 2^60 values decoded")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("decoding a plist expanding to 2^60 values is still running")
	}
}

func TestDeepOrTextPlistsRefused(t *testing.T) {
	ok := `<?xml version="1.0"?><plist version="1.0"><dict><key>a</key><array><dict/><array/></array></dict></plist>`
	var v any
	if err := decodePlist([]byte(ok), &v); err != nil {
		t.Fatalf("a nested XML plist: %v", err)
	}
	n := maxPlistDepth + 1
	deep := `<?xml version="1.0"?><plist version="1.0">` + strings.Repeat("<array>", n) + strings.Repeat("</array>", n) + "</plist>"
	for name, in := range map[string]string{"deep XML": deep, "text": `{ a = (1, 2); }`, "empty-ish": "  "} {
		if err := decodePlist([]byte(in), &v); err == nil {
			t.Errorf("%s plist decoded", name)
		}
	}
}
