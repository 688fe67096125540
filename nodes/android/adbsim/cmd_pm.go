package adbsim

import (
	"errors"
	"slices"
	"strings"

	"github.com/corral-farm/corral/nodes/sim"
)

// cmdPm runs `pm list packages|path|clear|install|uninstall`.
func cmdPm(d *Device, c *call) int {
	if len(c.args) < 2 {
		c.errorf("usage: pm [list|path|install|uninstall|clear] ...\n")
		return 1
	}
	args := operands(c.args[2:])
	switch c.args[1] {
	case "list":
		if len(args) == 0 || args[0] != "packages" {
			c.errorf("Error: unknown list type '%s'\n", strings.Join(args, " "))
			return 1
		}
		filter := ""
		if len(args) > 1 {
			filter = args[1]
		}
		thirdParty := slices.Contains(c.args[2:], "-3")
		for _, p := range d.packages() {
			if strings.Contains(p, filter) && (!thirdParty || d.isInstalled(p)) {
				c.printf("package:%s\n", p)
			}
		}
		return 0
	case "path": // an unknown package: nothing printed, status 1
		switch {
		case len(args) != 1:
		case d.isInstalled(args[0]):
			c.printf("package:/data/app/%s-1/base.apk\n", args[0])
			return 0
		case d.isBuiltin(args[0]): // in the system image, as a phone's own apps are
			name := args[0][strings.LastIndexByte(args[0], '.')+1:]
			c.printf("package:/system/app/%s/%s.apk\n", name, name)
			return 0
		}
		return 1
	case "clear":
		if len(args) != 1 || !d.known(args[0]) {
			c.printf("Failed\n")
			return 1
		}
		return pmClear(d, c, args[0])
	case "install":
		return pmInstall(d, c, args)
	case "uninstall":
		if len(args) == 1 && d.uninstall(args[0]) {
			if st := phoneErr(c, d.phone.StopApp(c.ctx, args[0])); st != 0 {
				return st
			}
			c.printf("Success\n")
			return 0
		}
		c.printf("Failure [DELETE_FAILED_INTERNAL_ERROR]\n")
		return 1
	}
	c.printf("Unknown command: %s\n", c.args[1])
	return 1
}

// operands drops the options (-r, -3, --user 0, …) from args.
func operands(args []string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "--user" || a == "-i" || a == "--install-location":
			i++
		case strings.HasPrefix(a, "-"):
		default:
			out = append(out, a)
		}
	}
	return out
}

func (d *Device) known(pkg string) bool { return d.isBuiltin(pkg) || d.isInstalled(pkg) }

// pmClear clears pkg's data as the phone does (Notes loses its note, the app stops). The
// helpers and the installed packages have no state on the phone: an installed one stops, and
// it says Success.
func pmClear(d *Device, c *call, pkg string) int {
	err := d.phone.ClearApp(c.ctx, pkg)
	if errors.Is(err, sim.ErrUnknownPackage) { // installed here: it has no data, but it stops
		err = d.phone.StopApp(c.ctx, pkg)
	}
	if err != nil {
		return phoneErr(c, err)
	}
	c.printf("Success\n")
	return 0
}

// pmInstall installs the pushed APK at args[0]; -r allows replacing an installed package.
func pmInstall(d *Device, c *call, args []string) int {
	if len(args) != 1 {
		c.errorf("Error: APK content must be streamed or given as one path\n")
		return 1
	}
	f, ok := d.files.get(args[0])
	if !ok {
		c.printf("Failure [INSTALL_FAILED_INVALID_URI: no file at %s; push it first]\n", args[0])
		return 1
	}
	pkg, failure := d.packageOf(args[0], f.Data)
	replace := slices.Contains(c.args, "-r")
	switch {
	case failure != "":
	case d.isBuiltin(pkg):
		failure = "INSTALL_FAILED_UPDATE_INCOMPATIBLE: Package " + pkg + " is a system app"
	case d.isInstalled(pkg) && !replace:
		failure = "INSTALL_FAILED_ALREADY_EXISTS: Attempt to re-install " + pkg + " without first uninstalling."
	}
	if failure != "" {
		c.printf("Failure [%s]\n", failure)
		return 1
	}
	d.mu.Lock()
	if d.apps.installed == nil {
		d.apps.installed = map[string]string{}
	}
	d.apps.installed[pkg] = args[0]
	d.mu.Unlock()
	c.printf("Success\n")
	return 0
}

func (d *Device) uninstall(pkg string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	_, ok := d.apps.installed[pkg]
	delete(d.apps.installed, pkg)
	return ok
}

// cmdMonkey runs `monkey -p PKG -c android.intent.category.LAUNCHER 1`: it launches PKG, which
// comes to the front (an installed package on a plain page of its own).
func cmdMonkey(d *Device, c *call) int {
	pkg := ""
	for i, a := range c.args[1:] {
		c.printf("  bash arg: %s\n", a)
		if a == "-p" && i+2 < len(c.args) {
			pkg = c.args[i+2]
		}
	}
	if st := launch(d, c, pkg); st != 0 {
		if st == noActivity {
			c.errorf("** No activities found to run, monkey aborted.\n")
		}
		return st
	}
	c.printf("Events injected: 1\n## Network stats: elapsed time=4ms (0ms mobile, 0ms wifi, 4ms not connected)\n")
	return 0
}

// noActivity is monkey's status for a package with no launcher activity (or none installed).
const noActivity = 252

// launch brings pkg to the front: the phone's own apps on their pages, an installed package on
// a page of its own. It prints nothing but a phone's error; noActivity for a package that is
// not installed.
func launch(d *Device, c *call, pkg string) int {
	var err error
	if d.isInstalled(pkg) {
		err = d.phone.ShowApp(c.ctx, pkg)
	} else {
		err = d.phone.LaunchApp(c.ctx, pkg)
	}
	if errors.Is(err, sim.ErrUnknownPackage) {
		return noActivity
	}
	return phoneErr(c, err)
}
