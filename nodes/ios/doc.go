// Package ios drives iPhones as Corral devices (platform ios): found through usbmuxd, described
// by lockdown, their apps managed by installation_proxy and AFC, their screens driven through
// WebDriverAgent's HTTP API, all through go-ios's protocol code over connections this package
// dials itself (so that several usbmuxds serve one process).
//
// Attach follows a usbmuxd's Listen events: a device plugged in becomes a Driver, shown
// unhealthy with what a person must do until it trusts this computer and its WebDriverAgent
// answers; one unplugged is removed, failing its call in flight with "device disconnected".
// When usbmuxd restarts, Attach listens again and reconciles with its device list, giving a
// device the new usbmuxd does not list at once a grace period to be listed again.
//
// WebDriverAgent is reached through a usbmux connection to the phone's port 8100 (an
// http.Transport whose DialContext connects through usbmuxd), never a forwarded local port.
// A supervisor per device probes WDA's /status, restarts it through a Launcher (go-ios's
// testmanagerd runner, a farm's own command, or nothing when the farm runs WDA itself) with
// backoff, makes a new session and tells the node the device's health (device.HealthReporter).
// WDA takes points, screenshots are pixels: the driver converts with the screen's scale, and
// turns WDA's XCUITest source into uiautomator XML with pixel bounds, so the catalog's tools
// work unchanged. Requests to WDA are rate-limited per device.
//
// StartSims runs simulated iPhones (package iossim behind a TCP usbmuxd, WebDriverAgent from
// package wdasim over a simulated phone), which `corral up --sim-ios N` and `corral sim ios`
// start, so that the whole real path is exercised with no hardware. iOS 17 and later reach
// their services through a tunnel (RemoteXPC) that needs a real device: see docs/ios.md.
package ios
