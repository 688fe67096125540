// Package adbsim is a simulated Android device that the real adb server connects to, as it would
// to a phone on Wi-Fi: `adb connect 127.0.0.1:PORT`. It speaks the device side of the ADB
// transport protocol over TCP (CNXN, OPEN, OKAY, WRTE, CLSE, without AUTH) and serves the
// `shell:`, `exec:` and `sync:` services.
//
// Shell commands are not run by a shell: a small interpreter answers the commands of
// docs/android.md (input, screencap, uiautomator, wm, dumpsys, pm, monkey, am, getprop, ime,
// settings, rm, getevent, test) from a simulated phone (nodes/sim), with POSIX quoting, the
// `;`, `&&`, `||` and `|` operators, background jobs (`&`, `wait`) and simple redirections
// (`</dev/null`, `2>&1`, `>FILE`). Expansions and subshells are refused with a syntax error;
// unknown commands answer as a shell would: `/system/bin/sh: NAME: not found`. ADB_INPUT_B64
// broadcasts type only while `ime set` has chosen the ADBKeyboard IME, as on a phone.
// WithAndroid picks the Android generation where answers differ; `input` is as slow to start
// as on a phone (150 ms by default, WithInputStartup), and Taps tells when taps went down and
// lifted.
//
// Its input devices are a phone's: getevent lists a touchscreen whose axes are not pixels
// (0–4095, WithTouchPanel), volume and power buttons and navigation keys. A stream running
// `cat > /dev/input/eventN` (exec: or shell:) is read as input_event structs of the size its
// ABI gives (WithABI), which the kernel's multitouch protocol B turns into taps, swipes and key
// presses on the phone (evsink.go). WithoutTouchscreen and WithInputDevicesDenied are phones a
// host cannot write touches to; KillInputWriters ends the streams, as `pkill cat` would.
//
// The display a device reports (size and density overrides set by `wm`, rotation set by
// SetRotation) is applied to what it serves: input coordinates are mapped back to the phone's
// pixels, and screenshots and UI bounds are scaled and rotated into the display's frame, so a
// tap computed from a screenshot lands on what the screenshot shows.
//
// Tests observe a device with Commands (every shell and exec command, exactly as received),
// its Phone's InputLog, Taps, TouchesDown, InputWriters, File, Installed, Clipboard and IME,
// and steer it with SetDelay, SetRotation, SetInputDevicesDenied, KillInputWriters,
// RegisterAPK, Kill and Restart (and the phone's own SetDelay and faults).
package adbsim
