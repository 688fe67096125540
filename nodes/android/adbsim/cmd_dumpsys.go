package adbsim

import (
	"fmt"
	"strings"
)

// cmdDumpsys runs `dumpsys window|input|battery`: the lines of a phone's dump that drivers grep.
func cmdDumpsys(d *Device, c *call) int {
	if len(c.args) < 2 {
		c.printf("Currently running services:\n  battery\n  input\n  window\n")
		return 0
	}
	switch c.args[1] {
	case "window":
		return dumpWindow(d, c)
	case "input":
		s := d.currentDisplay()
		w, h := s.size()
		c.printf("INPUT MANAGER (dumpsys input)\n\nInput Reader State:\n  Device 2: corral_touchscreen\n"+
			"    Sources: 0x00001002\n    Touch Input Mapper (mode: DIRECT):\n"+
			"      SurfaceWidth: %dpx\n      SurfaceHeight: %dpx\n      %s\n", w, h, orientationLine(d.sdk, s.rotation))
	case "battery":
		c.printf("Current Battery Service state:\n  AC powered: false\n  USB powered: true\n  Wireless powered: false\n" +
			"  Max charging current: 500000\n  status: 2\n  health: 2\n  present: true\n  level: 87\n  scale: 100\n" +
			"  voltage: 4200\n  temperature: 250\n  technology: Li-ion\n")
	default:
		c.printf("Can't find service: %s\n", c.args[1])
	}
	return 0
}

// dumpWindow prints the focused window: the foreground app's main activity, the launcher, or
// the lock screen's NotificationShade.
func dumpWindow(d *Device, c *call) int {
	pkg, err := d.foreground(c)
	if err != nil {
		return phoneErr(c, err)
	}
	title, app := pkg+"/"+pkg+".MainActivity", true
	switch pkg {
	case systemUIPkg:
		title, app = "NotificationShade", false
	case launcherPkg:
		title = pkg + "/" + pkg + ".Launcher"
	}
	c.printf("WINDOW MANAGER WINDOWS (dumpsys window windows)\n  Window #0 Window{1a2b3c u0 %s}:\n", title)
	c.printf("  mCurrentFocus=Window{1a2b3c u0 %s}\n", title)
	if app {
		c.printf("  mFocusedApp=ActivityRecord{4d5e6f u0 %s t7}\n", title)
	}
	return 0
}

// foreground is the package of what the phone shows: its UI root's package.
func (d *Device) foreground(c *call) (string, error) {
	src, err := d.phone.Source(c.ctx)
	if err != nil {
		return "", err
	}
	_, rest, ok := strings.Cut(src, ` package="`)
	if !ok {
		return launcherPkg, nil
	}
	pkg, _, _ := strings.Cut(rest, `"`)
	return pkg, nil
}

// orientationLine is the touch screen's rotation as `dumpsys input` prints it on this SDK.
func orientationLine(sdk, rotation int) string {
	switch {
	case sdk < 33:
		return fmt.Sprintf("SurfaceOrientation: %d", rotation)
	case sdk < 35:
		return fmt.Sprintf("InputDeviceOrientation: %d", rotation)
	}
	return fmt.Sprintf("InputDeviceOrientation: Rotation%d", rotation*90)
}
