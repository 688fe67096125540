package android

import (
	"errors"

	"github.com/corral-farm/corral/nodes/device"
)

// Sentinel errors. Every error a Driver returns is an *Error wrapping one of these, the
// caller's ctx error, or what the device or the adb server answered.
var (
	// ErrDisconnected: the device left the adb server (or the driver was closed) before or
	// during the call.
	ErrDisconnected = errors.New("device disconnected")
	// ErrBadArgument: the call's arguments cannot become a safe adb command (or name a key
	// Android has not, a file that cannot be read). A caller's mistake: device.ErrBadInput.
	ErrBadArgument error = &mistake{"bad argument"}
	// ErrCommandFailed: the device ran the command and said it failed.
	ErrCommandFailed = errors.New("command failed")
	// ErrNotInstalled: the package named is not installed on the device. A caller's mistake:
	// device.ErrBadInput.
	ErrNotInstalled error = &mistake{"not installed"}
	// ErrSystemApp: the package came with the phone's system image: pm uninstall refuses it. A
	// caller's mistake: device.ErrBadInput.
	ErrSystemApp error = &mistake{"system app"}
	// ErrAPKRefused: pm install refused the file for what it is (not an APK, one for another
	// Android or ABI, a downgrade, ...), not for the phone's state. A caller's mistake:
	// device.ErrBadInput.
	ErrAPKRefused error = &mistake{"APK refused"}
	// ErrNoADBKeyboard: the text needs the ADBKeyboard IME and another input method is active.
	// The phone's setup lacks what the call needs, not a failure of the driver:
	// device.ErrUnsupported.
	ErrNoADBKeyboard error = &lack{"ADBKeyboard is not the active input method"}
	// ErrServer: the adb server is unreachable or answered something unexpected.
	ErrServer = errors.New("adb server")
)

// mistake is a sentinel for the caller's mistakes: it is device.ErrBadInput (errors.Is), so
// that the tools answer bad_input, and not driver_error, which counts against the device.
type mistake struct{ msg string }

func (m *mistake) Error() string { return m.msg }

func (m *mistake) Is(target error) bool { return target == device.ErrBadInput }

// lack is a sentinel for what the phone lacks by how it is set up: it is device.ErrUnsupported
// (errors.Is), so that the tools answer unsupported, a refusal, and not driver_error.
type lack struct{ msg string }

func (l *lack) Error() string { return l.msg }

func (l *lack) Is(target error) bool { return target == device.ErrUnsupported }

// Error is a failed operation on a device of this driver (see device.Error).
type Error = device.Error
