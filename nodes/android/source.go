package android

import (
	"context"
	"maps"
)

// Source returns the UI hierarchy: `uiautomator dump /dev/tty` without its trailing line.
func (d *Driver) Source(ctx context.Context) (string, error) {
	const op = "source"
	out, err := d.shell(ctx, op, "uiautomator dump /dev/tty")
	if err != nil {
		return "", err
	}
	xml, err := stripUIDump(out)
	if err != nil {
		return "", d.fail(ctx, op, err, "uiautomator fails while the screen animates or is off; retry, or wake the device")
	}
	return xml, nil
}

// Status reports the battery (`dumpsys battery`: battery_level, battery_status, ac_powered,
// usb_powered, wireless_powered) and the device's model, brand, release and sdk.
func (d *Driver) Status(ctx context.Context) (map[string]string, error) {
	out, err := d.shell(ctx, "status", "dumpsys battery")
	if err != nil {
		return nil, err
	}
	m := parseBattery(out)
	maps.Copy(m, map[string]string{"model": d.info.Model, "brand": d.info.Brand,
		"release": d.info.Release, "sdk": d.info.SDK})
	return m, nil
}
