package android

import "maps"

// WithPasscodes gives the devices whose serials it lists their lock screen passcodes: those of
// the simulated devices the node started itself (--sim-android), which it knows as it knows
// the --sim phones'. Devices it does not list, real phones, know none.
func WithPasscodes(bySerial map[string]string) Option {
	bySerial = maps.Clone(bySerial)
	return func(d *Driver) { d.passcode = bySerial[d.serial] }
}

// Passcode returns the device's lock screen passcode if the node knows it (WithPasscodes), ""
// otherwise: unlock_phone types it unless the node's --passcodes has an entry of the device's
// own. It is a secret: nothing logs or shows it.
func (d *Driver) Passcode() string { return d.passcode }
