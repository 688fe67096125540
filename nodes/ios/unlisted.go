package ios

import (
	"errors"
	"fmt"
)

// ErrUnlisted is a device usbmuxd has not listed since it restarted: nothing is sent to it
// meanwhile, as its old id may be another phone's now.
var ErrUnlisted = errors.New("usbmuxd restarted and does not list the iPhone yet")

// unlisted is the error for a call to a device whose id is 0 (Attach's mark for one that is
// not listed yet), nil for any other id.
func unlisted(deviceID int) error {
	if deviceID > 0 {
		return nil
	}
	return fmt.Errorf("%w: it is taken as unplugged unless usbmuxd lists it within %s", ErrUnlisted, relistGrace)
}
