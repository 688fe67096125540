package iossim

import (
	"maps"
	"time"
)

// amfiDomain holds DeveloperModeStatus.
const amfiDomain = "com.apple.security.mac.amfi"

// publicKeys are the root-domain values lockdown gives without a session, as `ideviceinfo -s`
// shows them; the rest needs a paired session.
var publicKeys = map[string]bool{
	"BasebandCertId": true, "BasebandKeyHashInformation": true, "BasebandSerialNumber": true,
	"BasebandVersion": true, "BoardId": true, "BuildVersion": true, "CPUArchitecture": true,
	"ChipID": true, "DeviceClass": true, "DeviceColor": true, "DeviceName": true,
	"DevicePublicKey": true, "DieID": true, "HardwareModel": true, "HasSiDP": true,
	"PartitionType": true, "ProductName": true, "ProductType": true, "ProductVersion": true,
	"ProductionSOC": true, "ProtocolVersion": true, "SupportedDeviceFamilies": true,
	"TelephonyCapability": true, "UniqueChipID": true, "UniqueDeviceID": true, "WiFiAddress": true,
}

// settable are the root-domain keys SetValue may change; the rest is the device's identity.
var settable = map[string]bool{"DeviceName": true, "TimeZone": true, "Uses24HourClock": true}

// Bounds on what SetValue may store, since its values come from any host.
const (
	maxDomains  = 64
	maxKeys     = 256
	maxSetBytes = 1 << 20
)

// initialValues is lockdown's value store: the root domain ("") and a few others hosts read.
func initialValues(d *Device) map[string]map[string]any {
	id := d.ident
	root := map[string]any{
		"ActivationState":             "Activated",
		"ActivationStateAcknowledged": true,
		"BasebandCertId":              uint64(2315222105),
		"BasebandKeyHashInformation": map[string]any{
			"AKeyStatus": uint64(2), "SKeyHash": make([]byte, 20), "SKeyStatus": uint64(0),
		},
		"BasebandSerialNumber":      []byte{0x12, 0x34, 0x56, 0x78},
		"BasebandVersion":           "4.02.01",
		"BluetoothAddress":          id.btMAC,
		"BoardId":                   uint64(12),
		"BrickState":                false,
		"BuildVersion":              id.buildVersion,
		"CPUArchitecture":           "arm64e",
		"ChipID":                    id.chipID,
		"DeviceClass":               "iPhone",
		"DeviceColor":               "1",
		"DeviceName":                id.name,
		"DevicePublicKey":           pemPublicKey(&d.key.PublicKey),
		"DieID":                     id.uniqueChipID ^ 0x5A5A,
		"FirmwareVersion":           "iBoot-8422.141.2",
		"HardwareModel":             id.hardwareModel,
		"HardwarePlatform":          "t8030",
		"HasSiDP":                   true,
		"HostAttached":              true,
		"MLBSerialNumber":           id.serial + "MLB1",
		"ModelNumber":               "MX9R2",
		"PartitionType":             "GUID_partition_scheme",
		"PasswordProtected":         false,
		"ProductName":               "iPhone OS",
		"ProductType":               id.productType,
		"ProductVersion":            id.productVersion,
		"ProductionSOC":             true,
		"ProtocolVersion":           "2",
		"RegionInfo":                "LL/A",
		"SerialNumber":              id.serial,
		"SIMStatus":                 "kCTSIMSupportSIMStatusReady",
		"SoftwareBehavior":          make([]byte, 16),
		"SoftwareBundleVersion":     "",
		"SupportedDeviceFamilies":   []uint64{1},
		"TelephonyCapability":       true,
		"TimeIntervalSince1970":     float64(time.Now().Unix()),
		"TimeZone":                  "UTC",
		"TimeZoneOffsetFromUTC":     float64(0),
		"TrustedHostAttached":       true,
		"UniqueChipID":              id.uniqueChipID,
		"UniqueDeviceID":            d.udid,
		"UseRaptorCerts":            true,
		"Uses24HourClock":           false,
		"WiFiAddress":               id.wifiMAC,
		"WirelessBoardSerialNumber": id.serial + "WB",
	}
	return map[string]map[string]any{
		"":         root,
		amfiDomain: {"DeveloperModeStatus": id.developerMode},
		"com.apple.international": {
			"Language": "en", "Locale": "en_US", "Uses24HourClock": false,
			"SupportedLanguages": []string{"en", "de", "fr", "ja"},
		},
		"com.apple.mobile.battery": {
			"BatteryCurrentCapacity": uint64(100), "BatteryIsCharging": false,
			"ExternalChargeCapable": true, "ExternalConnected": true, "FullyCharged": true,
		},
		"com.apple.disk_usage": {
			"TotalDiskCapacity": uint64(64_000_000_000), "TotalDataCapacity": uint64(50_000_000_000),
			"TotalDataAvailable": uint64(maxFSBytes), "AmountDataAvailable": uint64(maxFSBytes),
		},
		"com.apple.mobile.wireless_lockdown": {"EnableWifiConnections": false},
		"com.apple.Accessibility":            {"VoiceOverTouchEnabledByiTunes": false, "ZoomTouchEnabledByiTunes": false},
	}
}

// getValue answers GetValue: one key, or a whole domain when key is empty. Without a session
// only the public root-domain keys are there.
func (d *Device) getValue(domain, key string, session bool) (any, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !session && domain != "" {
		return nil, false
	}
	dom, ok := d.values[domain]
	if !ok {
		return nil, false
	}
	if key == "" {
		out := maps.Clone(dom)
		if !session {
			maps.DeleteFunc(out, func(k string, _ any) bool { return !publicKeys[k] })
		}
		return out, true
	}
	if !session && !publicKeys[key] {
		return nil, false
	}
	v, ok := dom[key]
	return v, ok
}

// setValue answers SetValue with lockdown's error name, or "" when the value is stored.
func (d *Device) setValue(domain, key string, v any, size int) string {
	d.mu.Lock()
	defer d.mu.Unlock()
	switch {
	case domain == "" && !settable[key]:
		return "ImmutableValue"
	case d.setBytes+size > maxSetBytes:
		return "SetProhibited"
	}
	dom, ok := d.values[domain]
	if !ok {
		if len(d.values) >= maxDomains {
			return "SetProhibited"
		}
		dom = map[string]any{}
		d.values[domain] = dom
	}
	if _, exists := dom[key]; !exists && len(dom) >= maxKeys {
		return "SetProhibited"
	}
	dom[key] = v
	d.setBytes += size
	return ""
}
