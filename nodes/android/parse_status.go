package android

import (
	"fmt"
	"strconv"
	"strings"
)

// batteryStatus names the values of `dumpsys battery`'s status (BatteryManager.BATTERY_STATUS_*).
var batteryStatus = map[string]string{"1": "unknown", "2": "charging", "3": "discharging", "4": "not_charging", "5": "full"}

// parseBattery reads `dumpsys battery` into Status keys: battery_level (0–100),
// battery_status (charging, discharging, not_charging, full, unknown), ac_powered,
// usb_powered and wireless_powered (true/false). Missing lines leave keys out.
func parseBattery(out string) map[string]string {
	m := map[string]string{}
	for line := range strings.Lines(out) {
		key, value, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok {
			continue
		}
		value = strings.TrimSpace(value)
		switch strings.TrimSpace(key) {
		case "level":
			if n, err := strconv.Atoi(value); err == nil && n >= 0 && n <= 100 {
				m["battery_level"] = value
			}
		case "status":
			if s, ok := batteryStatus[value]; ok {
				m["battery_status"] = s
			}
		case "AC powered":
			m["ac_powered"] = boolValue(value)
		case "USB powered":
			m["usb_powered"] = boolValue(value)
		case "Wireless powered":
			m["wireless_powered"] = boolValue(value)
		}
	}
	return m
}

func boolValue(s string) string {
	if s == "true" {
		return "true"
	}
	return "false"
}

// parseBroadcast reads what `am broadcast` answers: "Broadcast completed: result=N" and
// maybe ", data=\"…\"".
func parseBroadcast(out string) (result int, data string, err error) {
	_, rest, ok := strings.Cut(out, "Broadcast completed: result=")
	if !ok {
		return 0, "", fmt.Errorf("%w: am broadcast answered %s", ErrCommandFailed, quoteOutput(out))
	}
	num, tail, _ := strings.Cut(rest, ",")
	num = strings.TrimSpace(strings.SplitN(num, "\n", 2)[0])
	result, err = strconv.Atoi(num)
	if err != nil {
		return 0, "", fmt.Errorf("%w: am broadcast answered result %s", ErrCommandFailed, quoteOutput(num))
	}
	if _, d, ok := strings.Cut(tail, "data=\""); ok {
		if i := strings.LastIndexByte(d, '"'); i >= 0 {
			data = d[:i]
		}
	}
	return result, data, nil
}

// uiDumpTrailer is the line `uiautomator dump /dev/tty` writes after the XML (sic).
const uiDumpTrailer = "UI hierchary dumped to:"

// stripUIDump returns the XML of `uiautomator dump /dev/tty`, without the trailer line (which
// real devices write right after the XML, without a newline between).
func stripUIDump(out string) (string, error) {
	if i := strings.LastIndex(out, uiDumpTrailer); i >= 0 {
		out = out[:i]
	}
	out = strings.TrimSpace(out)
	start := strings.Index(out, "<?xml")
	if start < 0 {
		start = strings.Index(out, "<hierarchy")
	}
	if start < 0 || !strings.HasSuffix(out, "</hierarchy>") && !strings.HasSuffix(out, "<hierarchy/>") {
		return "", fmt.Errorf("%w: uiautomator answered %s, not a UI hierarchy", ErrCommandFailed, quoteOutput(out))
	}
	return out[start:], nil
}
