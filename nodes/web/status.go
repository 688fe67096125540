package web

import "context"

// Status answers unlock_phone's question (device.StatusReporter): a browser has no lock
// screen, so it is never locked, whether a tab is open or not. Without it a browser whose
// last tab was closed could not tell (no UI tree, nothing in front), and unlock_phone refused
// for want of a wake key what has nothing to unlock.
func (d *Driver) Status(context.Context) (map[string]string, error) {
	return map[string]string{"locked": "false"}, nil
}
