package web

// The steps of a call that tests kill the browser at: a call reaches each as it begins it,
// and the Driver's atStep hook, set by a test, runs there, so that the test kills Chromium
// at the moment it means rather than after a sleep.
const (
	stepOpen     = "open a tab"
	stepFront    = "bring the tab to the front"
	stepTakeOver = "take over a tab"
	stepRead     = "read the page"
	stepClose    = "close tab"
	stepLogin    = "log in"
)

// reached runs the atStep hook, if a test set one, as a call begins step.
func (d *Driver) reached(step string) {
	d.mu.Lock()
	hook := d.atStep
	d.mu.Unlock()
	if hook != nil {
		hook(step)
	}
}
