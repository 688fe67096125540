// Package android drives Android phones through the adb server, speaking the exact shell
// commands of docs/android.md (the contract the simulated device in adbsim answers too).
//
// The driver owns every connection it opens to the adb server: it implements the small part of
// the adb host protocol it needs ("%04x"-prefixed requests, OKAY/FAIL, then the stream) instead
// of going through gadb, whose calls take no context and hide their sockets behind a 60 s read
// timeout. Cancelling a call's ctx closes that call's socket, so the call returns at once and the
// adb server stops the command on the device. A device that leaves the adb server mid-call
// (cable pulled, emulator killed) fails the call with ErrDisconnected.
//
// Touches and the phone's button keys are written as Linux input events to the touchscreen's
// and the buttons' event devices, through one persistent adb stream per device
// (`exec:cat > /dev/input/eventN`), so that no `input` process has to start on the phone for
// each; a phone whose devices the shell may not write gets `input` commands instead, and Info
// says which (touch.go, input_setup.go).
//
// Watch follows the adb server's device list (host:track-devices) and Attach puts the devices
// it reports on a node, and takes them off again when they leave. Platform is Android as a
// node registers it: its flags (--adb, --sim-android) and that discovery.
package android
