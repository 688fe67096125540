package iossim

import (
	"bytes"
	"crypto/tls"
	"encoding/pem"
	"strings"
	"testing"

	ios "github.com/danielpaulus/go-ios/ios"
)

// TestLockdownSession runs go-ios's ConnectLockdownWithSession: ReadPairRecord, Connect to
// 62078, StartSession and real TLS, then values by key, by domain and all at once.
func TestLockdownSession(t *testing.T) {
	h := startHost(t)
	withGoIOS(t, h)
	d := newDevice(t, Config{Name: "Ada's iPhone", DeveloperMode: true})
	h.Attach(d)
	dev := entry(t, d.UDID())

	ld, err := ios.ConnectLockdownWithSession(dev)
	if err != nil {
		t.Fatal(err)
	}
	defer ld.Close()
	tc, ok := ld.Conn().(*tls.Conn)
	if !ok {
		t.Fatalf("lockdown connection is a %T after StartSession, want *tls.Conn", ld.Conn())
	}
	rec, err := ios.ReadPairRecord(d.UDID())
	if err != nil {
		t.Fatal(err)
	}
	state := tc.ConnectionState()
	block, _ := pem.Decode(rec.DeviceCertificate)
	if !state.HandshakeComplete || len(state.PeerCertificates) == 0 || block == nil || !bytes.Equal(state.PeerCertificates[0].Raw, block.Bytes) {
		t.Fatal("the device's TLS certificate is not the pair record's DeviceCertificate")
	}

	all, err := ld.GetValues()
	if err != nil {
		t.Fatal(err)
	}
	v := all.Value
	for _, c := range []struct{ key, got, want string }{
		{"DeviceName", v.DeviceName, "Ada's iPhone"},
		{"DeviceClass", v.DeviceClass, "iPhone"},
		{"ProductType", v.ProductType, "iPhone12,8"},
		{"ProductVersion", v.ProductVersion, "16.7.2"},
		{"BuildVersion", v.BuildVersion, "20H115"},
		{"UniqueDeviceID", v.UniqueDeviceID, d.UDID()},
		{"HardwareModel", v.HardwareModel, "D79AP"},
		{"WiFiAddress", v.WiFiAddress, rec.WiFiMACAddress},
	} {
		if c.got != c.want {
			t.Errorf("GetValues %s = %q, want %q", c.key, c.got, c.want)
		}
	}
	if len(v.SerialNumber) != 10 || v.UniqueChipID == 0 || len(v.SupportedDeviceFamilies) != 1 || !v.TrustedHostAttached {
		t.Errorf("GetValues: serial %q, chip id %d, families %v, trusted %v: a type did not decode", v.SerialNumber, v.UniqueChipID, v.SupportedDeviceFamilies, v.TrustedHostAttached)
	}
	if pv, err := ld.GetProductVersion(); err != nil || pv != "16.7.2" {
		t.Errorf("GetProductVersion: %q, %v", pv, err)
	}
	if mode, err := ld.GetValueForDomain("DeveloperModeStatus", "com.apple.security.mac.amfi"); err != nil || mode != true {
		t.Errorf("DeveloperModeStatus: %v, %v; want true", mode, err)
	}
	if lang, _ := ld.GetValueForDomain("Language", "com.apple.international"); lang != "en" {
		t.Errorf("Language: %v, want en", lang)
	}
	if err := ld.SetValueForDomain("Language", "com.apple.international", "de"); err != nil {
		t.Fatal(err)
	}
	if lang, _ := ld.GetValueForDomain("Language", "com.apple.international"); lang != "de" {
		t.Errorf("Language after SetValue: %v, want de", lang)
	}
	if err := ld.SetValueForDomain("UniqueDeviceID", "", "x"); err == nil {
		t.Error("SetValue of UniqueDeviceID succeeded, want ImmutableValue")
	}
	if wifi, err := ios.GetWifiMac(dev); err != nil || wifi != rec.WiFiMACAddress {
		t.Errorf("GetWifiMac: %q, %v", wifi, err)
	}
	if ver, err := ios.GetProductVersion(dev); err != nil || ver.String() != "16.7.2" {
		t.Errorf("ios.GetProductVersion: %v, %v", ver, err)
	}
	dm := newDevice(t, Config{})
	h.Attach(dm)
	ld2, err := ios.ConnectLockdownWithSession(entry(t, dm.UDID()))
	if err != nil {
		t.Fatal(err)
	}
	defer ld2.Close()
	if mode, _ := ld2.GetValueForDomain("DeveloperModeStatus", "com.apple.security.mac.amfi"); mode != false {
		t.Errorf("DeveloperModeStatus of a device without developer mode: %v", mode)
	}
}

// TestLockdownWithoutSession: QueryType and public values work; the rest needs a session.
func TestLockdownWithoutSession(t *testing.T) {
	h := startHost(t)
	d := newDevice(t, Config{Untrusted: true, ProductVersion: "16.1"})
	h.Attach(d)
	mux := dialMux(t, h)
	ld, err := mux.ConnectLockdown(entry2(t, mux, d.UDID()))
	if err != nil {
		t.Fatal(err)
	}
	if err := ld.Send(map[string]any{"Label": "test", "Request": "QueryType"}); err != nil {
		t.Fatal(err)
	}
	resp, err := ld.ReadMessage()
	if err != nil {
		t.Fatal(err)
	}
	if m, _ := ios.ParsePlist(resp); m["Type"] != "com.apple.mobile.lockdown" || m["Request"] != "QueryType" {
		t.Errorf("QueryType: %v", m)
	}
	if v, err := ld.GetProductVersion(); err != nil || v != "16.1" {
		t.Errorf("ProductVersion without a session: %q, %v", v, err)
	}
	if v, _ := ld.GetValue("SerialNumber"); v != nil {
		t.Errorf("SerialNumber without a session: %v, want none", v)
	}
	if v, _ := ld.GetValueForDomain("DeveloperModeStatus", amfiDomain); v != nil {
		t.Errorf("a domain value without a session: %v, want none", v)
	}
	if _, err := ld.StartService("com.apple.afc"); err == nil || !strings.Contains(err.Error(), "SessionInactive") {
		t.Errorf("StartService without a session: %v, want SessionInactive", err)
	}
}

// TestUntrustedDevice: no pair record, sessions refused, Pair pending; Trust fixes all.
func TestUntrustedDevice(t *testing.T) {
	h := startHost(t)
	withGoIOS(t, h)
	d := newDevice(t, Config{Untrusted: true})
	other := newDevice(t, Config{})
	h.Attach(d)
	h.Attach(other)
	dev := entry(t, d.UDID())

	if _, err := ios.ReadPairRecord(d.UDID()); err == nil || !strings.Contains(err.Error(), "errorcode '2'") {
		t.Fatalf("ReadPairRecord of an untrusted device: %v, want usbmuxd's error 2", err)
	}
	if _, err := ios.ConnectLockdownWithSession(dev); err == nil {
		t.Fatal("ConnectLockdownWithSession on an untrusted device succeeded")
	}
	// Another host's pair record is not this device's: StartSession is refused.
	otherRec, err := ios.ReadPairRecord(other.UDID())
	if err != nil {
		t.Fatal(err)
	}
	mux := dialMux(t, h)
	ld, err := mux.ConnectLockdown(dev.DeviceID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ld.StartSession(otherRec); err == nil || !strings.Contains(err.Error(), "InvalidHostID") {
		t.Fatalf("StartSession with an unknown host: %v, want InvalidHostID", err)
	}
	if err := ld.Send(map[string]any{"Request": "ValidatePair", "PairRecord": map[string]any{"HostID": otherRec.HostID}}); err != nil {
		t.Fatal(err)
	}
	if resp, _ := ld.ReadMessage(); !bytes.Contains(resp, []byte("InvalidHostID")) {
		t.Errorf("ValidatePair of an unknown host: %s, want InvalidHostID", resp)
	}
	if err := ios.Pair(dev); err == nil || !strings.Contains(err.Error(), "accept the PairingDialog") {
		t.Fatalf("Pair on an untrusted device: %v, want the pairing dialog pending", err)
	}

	d.Trust()
	rec, err := ios.ReadPairRecord(d.UDID())
	if err != nil {
		t.Fatalf("ReadPairRecord after Trust: %v", err)
	}
	for name, b := range map[string][]byte{"HostCertificate": rec.HostCertificate, "HostPrivateKey": rec.HostPrivateKey,
		"DeviceCertificate": rec.DeviceCertificate, "RootCertificate": rec.RootCertificate, "RootPrivateKey": rec.RootPrivateKey} {
		if block, _ := pem.Decode(b); block == nil {
			t.Errorf("pair record %s is not PEM", name)
		}
	}
	if rec.HostID == "" || rec.SystemBUID == "" || len(rec.EscrowBag) == 0 || rec.WiFiMACAddress == "" {
		t.Errorf("pair record %+v lacks HostID, SystemBUID, EscrowBag or WiFiMACAddress", rec)
	}
	ld2, err := ios.ConnectLockdownWithSession(dev)
	if err != nil {
		t.Fatalf("session after Trust: %v", err)
	}
	if v, err := ld2.GetValue("SerialNumber"); err != nil || v == nil {
		t.Errorf("SerialNumber in a session: %v, %v", v, err)
	}
	ld2.Close()
}

// TestGoIOSPair runs go-ios's own Pair once the user trusts: it makes its certificates for
// the DevicePublicKey, the device accepts them and usbmuxd saves the record.
func TestGoIOSPair(t *testing.T) {
	h := startHost(t)
	withGoIOS(t, h)
	d := newDevice(t, Config{Untrusted: true})
	h.Attach(d)
	dev := entry(t, d.UDID())
	d.Trust()
	before, err := ios.ReadPairRecord(d.UDID())
	if err != nil {
		t.Fatal(err)
	}
	next, closeListen, err := ios.Listen()
	if err != nil {
		t.Fatal(err)
	}
	defer closeListen()
	if _, err := next(); err != nil { // Attached
		t.Fatal(err)
	}
	if err := ios.Pair(dev); err != nil {
		t.Fatalf("go-ios Pair after Trust: %v", err)
	}
	if m := within(t, "Paired after SavePairRecord", func() ios.AttachedMessage { m, _ := next(); return m }); m.MessageType != "Paired" || m.DeviceID != dev.DeviceID {
		t.Errorf("Listen after Pair: %+v, want Paired for device %d", m, dev.DeviceID)
	}
	after, err := ios.ReadPairRecord(d.UDID())
	if err != nil {
		t.Fatal(err)
	}
	if after.HostID == before.HostID {
		t.Fatal("usbmuxd still has the old pair record after Pair saved a new one")
	}
	ld, err := ios.ConnectLockdownWithSession(dev)
	if err != nil {
		t.Fatalf("session with go-ios's own pairing: %v", err)
	}
	defer ld.Close()
	if v, err := ld.GetValue("UniqueDeviceID"); err != nil || v != d.UDID() {
		t.Errorf("UniqueDeviceID: %v, %v", v, err)
	}
}

// TestSessionNeedsTheHostCertificate: the right HostID with another host's certificate fails
// the TLS handshake the device requires.
func TestSessionNeedsTheHostCertificate(t *testing.T) {
	h := startHost(t)
	withGoIOS(t, h)
	d := newDevice(t, Config{})
	other := newDevice(t, Config{})
	h.Attach(d)
	h.Attach(other)
	rec, err := ios.ReadPairRecord(d.UDID())
	if err != nil {
		t.Fatal(err)
	}
	otherRec, err := ios.ReadPairRecord(other.UDID())
	if err != nil {
		t.Fatal(err)
	}
	rec.HostCertificate, rec.HostPrivateKey = otherRec.HostCertificate, otherRec.HostPrivateKey
	ld, err := dialMux(t, h).ConnectLockdown(entry(t, d.UDID()).DeviceID)
	if err != nil {
		t.Fatal(err)
	}
	_, err = ld.StartSession(rec)
	if err == nil { // TLS 1.3: the client finishes first and learns of the refusal on reading
		_, err = ld.GetValues()
		if err == nil {
			_, err = ld.GetValue("UniqueDeviceID")
		}
	}
	if err == nil {
		t.Fatal("a session with a foreign host certificate worked")
	}
}

// TestStopSessionPlaintext follows go-ios's DisableSessionSSL: after StopSession the host
// closes TLS, the device answers in kind, and a new session starts on the same connection.
func TestStopSessionPlaintext(t *testing.T) {
	h := startHost(t)
	withGoIOS(t, h)
	d := newDevice(t, Config{})
	h.Attach(d)
	rec, err := ios.ReadPairRecord(d.UDID())
	if err != nil {
		t.Fatal(err)
	}
	ld, err := dialMux(t, h).ConnectLockdown(entry(t, d.UDID()).DeviceID)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := ld.StartSession(rec)
	if err != nil {
		t.Fatal(err)
	}
	if err := ld.Send(map[string]any{"Request": "StopSession", "SessionID": resp.SessionID}); err != nil {
		t.Fatal(err)
	}
	if _, err := ld.ReadMessage(); err != nil {
		t.Fatal(err)
	}
	within(t, "DisableSessionSSL", func() bool { ld.DisableSessionSSL(); return true })
	if _, err := ld.StartSession(rec); err != nil {
		t.Fatalf("a second session on the same connection: %v", err)
	}
	if v, err := ld.GetValue("UniqueDeviceID"); err != nil || v != d.UDID() {
		t.Errorf("UniqueDeviceID in the second session: %v, %v", v, err)
	}
}
