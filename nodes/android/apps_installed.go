package android

import (
	"context"
	"io"
	"slices"

	"github.com/corral-farm/corral/nodes/android/apk"
	"github.com/corral-farm/corral/nodes/device"
)

// installedApp prepares to name what installing the APK in r (size bytes) installs: the
// package and version its manifest gives. When the manifest cannot be read (an odd or
// obfuscated one), the package is the one `pm list packages` shows after the install and did
// not before, so it is named only when new to the phone; a reinstall stays unnamed. The
// returned function is called once the install succeeded.
func (d *Driver) installedApp(ctx context.Context, r io.ReaderAt, size int64) func(context.Context) device.InstalledApp {
	m, err := apk.Read(r, size)
	if err == nil {
		return func(context.Context) device.InstalledApp {
			return device.InstalledApp{ID: m.Package, Version: m.VersionName}
		}
	}
	d.log.Debug("the APK's manifest is unreadable; naming the package from the list before and after",
		append(d.logSerial(), "err", err)...)
	before, err := d.ListPackages(ctx)
	if err != nil {
		return func(context.Context) device.InstalledApp { return device.InstalledApp{} }
	}
	return func(ctx context.Context) device.InstalledApp {
		after, err := d.ListPackages(ctx)
		if err != nil {
			return device.InstalledApp{}
		}
		var added []string
		for _, p := range after {
			if !slices.Contains(before, p) {
				added = append(added, p)
			}
		}
		if len(added) != 1 {
			return device.InstalledApp{}
		}
		return device.InstalledApp{ID: added[0]}
	}
}
