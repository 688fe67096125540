// Package iossim is a simulated iOS USB host: a usbmuxd on a loopback TCP port, with simulated
// iPhones behind it, that unmodified go-ios client code talks to. Point go-ios at it with
// USBMUXD_SOCKET_ADDRESS=Host.Addr() ("host:port" means TCP to go-ios).
//
// The Host speaks usbmuxd's plist protocol (version 1, a 16-byte little-endian header):
// ListDevices, Listen (Attached, Detached with only the DeviceID, Paired), ReadBUID,
// ReadPairRecord, SavePairRecord, DeletePairRecord and Connect, after which the connection is a
// raw byte pipe to a port on the device. Device IDs are small integers handed out on each
// Attach, as usbmuxd does. Result numbers are usbmuxd's: 0 ok, 1 bad command, 2 bad device (or
// no pair record), 3 connection refused, 6 bad version.
//
// Each Device serves, on its ports:
//   - lockdown (62078): QueryType, GetValue (all, by key, by domain and key), SetValue,
//     StartSession (then TLS as the device, with the device certificate of the pair record,
//     requiring the paired host certificate), StopSession (plaintext again once the host closes
//     TLS), StartService, ValidatePair, Pair, Unpair and Goodbye;
//   - com.apple.afc and com.apple.mobile.installation_proxy, on a fresh one-shot port per
//     StartService, with TLS as lockdown's; AFC over an in-memory file system (the device's
//     Media folder), installation_proxy with Browse, Lookup, Install (an .ipa or an unpacked
//     .app staged through AFC), Uninstall;
//   - any port a test gives an http.Handler with Handle (WebDriverAgent's 8100, say); Unhandle
//     refuses new connections and closes the open ones, as when the app on the phone dies.
//
// Pairing is real: every device makes RSA keys and X.509 certificates at creation (a root, a
// host and a device certificate, as go-ios's Pair does). A trusted device's pair record is what
// usbmuxd hands out; an untrusted one has none, refuses StartSession with InvalidHostID and
// answers Pair with PairingDialogResponsePending until Trust, the user's tap on "Trust". go-ios's
// own Pair then works too: it reads DevicePublicKey, makes its certificates, and the device
// trusts that host from then on.
//
// Tests steer the farm with Attach and Detach (unplugging closes every connection to the
// device), Restart (usbmuxd restarts: every client connection closes, Listen ones too), Trust,
// Handle and Unhandle, and observe installs with Apps.
//
// All input is treated as hostile: message sizes are bounded (usbmuxd 1 MiB, lockdown and
// services 1 MiB, AFC packets 16 MiB, a device's files 256 MiB); only XML and binary plists
// are read, nested at most 256 deep, and binary plists whose shared objects would expand
// beyond 100,000 values are refused; a malformed message gets an error answer or a closed
// connection, never a panic. Close stops every goroutine the host started.
package iossim
