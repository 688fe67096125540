package iossim

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"sync"
)

// Config describes a simulated iPhone. Zero fields take defaults.
type Config struct {
	UDID           string // default: a random "00008030-XXXXXXXXXXXXXXXX"
	Name           string // DeviceName, default "iPhone"
	ProductType    string // default "iPhone12,8" (iPhone SE, 2nd generation)
	ProductVersion string // iOS version, default "16.7.2": below 17 go-ios stays on usbmux paths
	BuildVersion   string // default "20H115"
	Untrusted      bool   // not paired: no pair record, lockdown refuses sessions until Trust
	DeveloperMode  bool   // lockdown's DeveloperModeStatus
	Apps           []App  // user apps installed at start
	// System are the apps built into the phone (ApplicationType "System": always there, not
	// removable); nil: a few of Apple's (Settings, Safari, Messages, Photos, Camera). A phone
	// whose screens come from elsewhere (a WebDriverAgent over a simulated phone) names its own,
	// so that installation_proxy lists what it can open.
	System []App
	// Uninstalled, if set, is told each app installation_proxy uninstalled, after the fact: a
	// phone whose screens come from elsewhere stops showing it, as iOS ends a removed app.
	Uninstalled func(bundleID string)
}

// App is an installed app as tests see it.
type App struct {
	BundleID string // CFBundleIdentifier
	Name     string // CFBundleName and CFBundleDisplayName
	Version  string // CFBundleShortVersionString and CFBundleVersion
}

// Device is one simulated iPhone: its identity, pairing, apps, files and ports. It is safe for
// concurrent use; attach it to a Host to make it reachable.
type Device struct {
	udid  string
	ident identity
	key   *rsa.PrivateKey // the device's own key: DevicePublicKey, its TLS certificates
	fs    *memFS
	// uninstalled is Config.Uninstalled; nil: none.
	uninstalled func(bundleID string)

	// The pairing Trust makes real: made at creation, so that Trust never fails.
	spareRecord  pairRecord
	sparePairing *hostPairing

	mu       sync.Mutex
	trusted  bool                    // the user tapped Trust: Pair requests succeed
	record   *pairRecord             // what usbmuxd holds for this device; nil: none
	hosts    map[string]*hostPairing // by HostID: the hosts the device is paired with
	values   map[string]map[string]any
	setBytes int // bytes stored by SetValue, bounded
	apps     map[string]*appRecord
	ports    map[uint16]portEntry
	open     map[uint16]map[*pipeConn]struct{}
	dynamic  []uint16 // one-shot service ports not yet connected, oldest first
	nextDyn  uint16
	host     *Host // the host the device is plugged into, if any
}

// identity is what a device says about itself; fixed at creation.
type identity struct {
	name, productType, productVersion, buildVersion string
	serial, wifiMAC, btMAC, hardwareModel           string
	chipID, uniqueChipID                            uint64
	developerMode                                   bool
}

// NewDevice makes a device. It generates the device's RSA key and a pair record (root, host and
// device certificates), which takes a few hundred milliseconds.
func NewDevice(cfg Config) (*Device, error) {
	udid := cfg.UDID
	if udid == "" {
		udid = randomUDID()
	}
	if err := checkUDID(udid); err != nil {
		return nil, err
	}
	sum := sha256.Sum256([]byte(udid)) // stable per UDID: serial, MAC addresses
	id := identity{
		name:           defaultString(cfg.Name, "iPhone"),
		productType:    defaultString(cfg.ProductType, "iPhone12,8"),
		productVersion: defaultString(cfg.ProductVersion, "16.7.2"),
		buildVersion:   defaultString(cfg.BuildVersion, "20H115"),
		serial:         serialFrom(sum[:10]),
		wifiMAC:        macFrom(sum[10:16]),
		btMAC:          macFrom(sum[16:22]),
		chipID:         0x8030,
		uniqueChipID:   uint64(sum[22])<<40 | uint64(sum[23])<<32 | uint64(sum[24])<<24 | uint64(sum[25])<<16 | uint64(sum[26])<<8 | uint64(sum[27]),
		developerMode:  cfg.DeveloperMode,
	}
	id.hardwareModel = hardwareModels[id.productType]
	apps, err := initialApps(cfg.System, cfg.Apps)
	if err != nil {
		return nil, err
	}
	key, err := rsa.GenerateKey(rand.Reader, rsaBits)
	if err != nil {
		return nil, fmt.Errorf("device %s: making its key: %w", udid, err)
	}
	rec, pairing, err := newPairing(key, hostBUID(udid), id.wifiMAC)
	if err != nil {
		return nil, fmt.Errorf("device %s: %w", udid, err)
	}
	d := &Device{
		udid:         udid,
		ident:        id,
		key:          key,
		fs:           newMemFS(maxFSBytes),
		spareRecord:  rec,
		sparePairing: pairing,
		hosts:        map[string]*hostPairing{},
		apps:         apps,
		ports:        map[uint16]portEntry{},
		open:         map[uint16]map[*pipeConn]struct{}{},
		nextDyn:      firstDynamicPort,
		uninstalled:  cfg.Uninstalled,
	}
	d.values = initialValues(d)
	d.ports[lockdownPort] = portEntry{serve: d.serveLockdown}
	if !cfg.Untrusted {
		d.trustLocked()
	}
	return d, nil
}

// UDID is the device's unique id, usbmuxd's SerialNumber.
func (d *Device) UDID() string { return d.udid }

// Trust is the user tapping "Trust" on the phone: from now on the device has a pair record,
// lockdown sessions work and go-ios's Pair succeeds. Listen clients of the host it is plugged
// into get a Paired message. Trusting a trusted device does nothing.
func (d *Device) Trust() {
	d.mu.Lock()
	if d.trusted {
		d.mu.Unlock()
		return
	}
	d.trustLocked()
	h := d.host
	d.mu.Unlock()
	if h != nil {
		h.notifyPaired(d)
	}
}

func (d *Device) trustLocked() {
	d.trusted = true
	rec := d.spareRecord
	d.record = &rec
	d.hosts[d.sparePairing.hostID] = d.sparePairing
}

// pairRecord is usbmuxd's record for the device, or nil.
func (d *Device) pairRecord() *pairRecord {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.record
}

// savePairRecord stores what a host saved with usbmuxd's SavePairRecord.
func (d *Device) savePairRecord(rec *pairRecord) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.record = rec
}

func (d *Device) deletePairRecord() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.record = nil
}

// pairing is the host the device knows by hostID, or nil.
func (d *Device) pairing(hostID string) *hostPairing {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.hosts[hostID]
}

// maxHosts bounds the hosts a device remembers, as Pair requests can come from anyone.
const maxHosts = 16

// pair accepts a host's pairing, once the user has tapped Trust.
func (d *Device) pair(p *hostPairing) (string, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	switch {
	case !d.trusted:
		return "PairingDialogResponsePending", false
	case d.hosts[p.hostID] == nil && len(d.hosts) >= maxHosts:
		return "PairingProhibitedOverThisConnection", false
	}
	d.hosts[p.hostID] = p
	return "", true
}

func (d *Device) unpair(hostID string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	_, ok := d.hosts[hostID]
	delete(d.hosts, hostID)
	return ok
}

func (d *Device) isTrusted() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.trusted
}

// plugged records the host the device is plugged into (nil: unplugged). Unplugging forgets the
// service ports nobody connected to, as the lockdown that opened them is gone.
func (d *Device) plugged(h *Host) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.host = h
	if h == nil {
		for _, p := range d.dynamic {
			delete(d.ports, p)
		}
		d.dynamic = nil
	}
}

var hardwareModels = map[string]string{
	"iPhone12,8": "D79AP",
	"iPhone13,2": "D53gAP",
	"iPhone14,5": "D17AP",
	"iPhone14,7": "D27AP",
	"iPhone15,2": "D73AP",
}

func defaultString(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// randomUDID makes a UDID in the shape of newer iPhones': chip id, dash, 16 hex digits.
func randomUDID() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return "00008030-" + strings.ToUpper(hex.EncodeToString(b))
}

// checkUDID keeps UDIDs to what real ones are made of, since they end up in paths and logs.
func checkUDID(udid string) error {
	if len(udid) > 64 {
		return fmt.Errorf("UDID %.20q… is longer than 64 characters", udid)
	}
	for _, r := range udid {
		if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '-') {
			return fmt.Errorf("UDID %q: only letters, digits and '-' are allowed", udid)
		}
	}
	return nil
}

// hostBUID is the SystemBUID of the pair record made at creation: any stable UUID will do.
func hostBUID(udid string) string {
	sum := sha256.Sum256([]byte("buid:" + udid))
	h := strings.ToUpper(hex.EncodeToString(sum[:16]))
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

func serialFrom(b []byte) string {
	const alphabet = "ABCDEFGHJKLMNPQRSTUVWXYZ0123456789" // no I or O, as Apple's
	out := make([]byte, len(b))
	for i, c := range b {
		out[i] = alphabet[int(c)%len(alphabet)]
	}
	return string(out)
}

func macFrom(b []byte) string {
	parts := make([]string, len(b))
	for i, c := range b {
		if i == 0 {
			c = c&^1 | 2 // unicast, locally administered
		}
		parts[i] = hex.EncodeToString([]byte{c})
	}
	return strings.Join(parts, ":")
}
