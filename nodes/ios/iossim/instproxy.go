package iossim

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
)

const installProxyServiceName = "com.apple.mobile.installation_proxy"

// browseChunk is how many apps one BrowsingApplications message carries.
const browseChunk = 10

// step is one progress message: a Status and its PercentComplete.
type step struct {
	status  string
	percent uint64
}

// installSteps are the progress messages installd sends while installing.
var installSteps = []step{
	{"CreatingStagingDirectory", 5}, {"ExtractingPackage", 15}, {"InspectingPackage", 20},
	{"TakingInstallLock", 20}, {"PreflightingApplication", 30}, {"VerifyingApplication", 40},
	{"CreatingContainer", 50}, {"InstallingApplication", 60}, {"PostflightingApplication", 70},
	{"SandboxingApplication", 80}, {"GeneratingApplicationMap", 90},
}

var uninstallSteps = []step{
	{"RemovingApplication", 50}, {"GeneratingApplicationMap", 90},
}

// serveInstallProxy answers installation_proxy commands, each with its stream of messages.
func (d *Device) serveInstallProxy(_ context.Context, c net.Conn, log *slog.Logger) {
	log = log.With("udid", d.udid, "service", "installation_proxy")
	for {
		payload, err := readFrame(c)
		if err != nil {
			if !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) {
				log.Debug("installation_proxy connection ends", "err", err)
			}
			return
		}
		req, err := decodeDict(payload)
		if err != nil {
			log.Debug("closing installation_proxy connection on a bad request", "err", err)
			return
		}
		for _, msg := range d.installProxyAnswer(req, log) {
			if err := writeFrame(c, msg); err != nil {
				return
			}
		}
	}
}

// installProxyAnswer is the messages one command gets, the last of them final (Status
// "Complete", or an Error).
func (d *Device) installProxyAnswer(req map[string]any, log *slog.Logger) []map[string]any {
	opts := dictDict(req, "ClientOptions")
	switch cmd := dictString(req, "Command"); cmd {
	case "Browse":
		return d.browse(opts)
	case "Lookup":
		return d.lookup(opts)
	case "Install", "Upgrade":
		pkg := dictString(req, "PackagePath")
		app, ierr := d.appFromPackage(pkg)
		if ierr != nil {
			log.Info("install refused", "package", pkg, "error", ierr.name, "why", ierr.description)
			return []map[string]any{installFailure(ierr)}
		}
		if e := d.installApp(app); e != "" {
			return []map[string]any{installFailure(&installError{e, "Cannot install over " + app.bundleID})}
		}
		log.Info("app installed", "bundle", app.bundleID, "version", app.shortVersion)
		return progress(installSteps, "Install")
	case "Uninstall":
		id := dictString(req, "ApplicationIdentifier")
		if e := d.uninstallApp(id); e != "" {
			desc := "No app with bundle identifier " + id + " is installed"
			if e == "UninstallProhibited" {
				desc = id + " is a system app and cannot be uninstalled"
			}
			return []map[string]any{installFailure(&installError{e, desc})}
		}
		log.Info("app uninstalled", "bundle", id)
		if d.uninstalled != nil {
			d.uninstalled(id)
		}
		return progress(uninstallSteps, "Uninstall")
	default:
		return []map[string]any{installFailure(&installError{"UnknownCommand", "Unknown command " + cmd})}
	}
}

// browse lists apps in chunks, then Complete, as go-ios's browseApps reads them.
func (d *Device) browse(opts map[string]any) []map[string]any {
	apps := d.appsOfType(dictString(opts, "ApplicationType"))
	attrs := dictStrings(opts, "ReturnAttributes")
	if ids := dictStrings(opts, "BundleIDs"); ids != nil {
		apps = filterApps(apps, ids)
	}
	var msgs []map[string]any
	for i := 0; i < len(apps); i += browseChunk {
		chunk := apps[i:min(i+browseChunk, len(apps))]
		list := make([]map[string]any, len(chunk))
		for j, a := range chunk {
			list[j] = a.attributes(attrs)
		}
		msgs = append(msgs, map[string]any{
			"CurrentIndex":  uint64(i),
			"CurrentAmount": uint64(len(chunk)),
			"CurrentList":   list,
			"Status":        "BrowsingApplications",
		})
	}
	return append(msgs, map[string]any{"Status": "Complete"})
}

// lookup answers in one message: the apps by bundle id.
func (d *Device) lookup(opts map[string]any) []map[string]any {
	apps := d.appsOfType(dictString(opts, "ApplicationType"))
	if ids := dictStrings(opts, "BundleIDs"); ids != nil {
		apps = filterApps(apps, ids)
	}
	attrs := dictStrings(opts, "ReturnAttributes")
	result := map[string]any{}
	for _, a := range apps {
		result[a.bundleID] = a.attributes(attrs)
	}
	return []map[string]any{{"LookupResult": result, "Status": "Complete"}}
}

func filterApps(apps []*appRecord, ids []string) []*appRecord {
	want := map[string]bool{}
	for _, id := range ids {
		want[id] = true
	}
	var out []*appRecord
	for _, a := range apps {
		if want[a.bundleID] {
			out = append(out, a)
		}
	}
	return out
}

// progress is a command's progress messages, then Complete.
func progress(steps []step, command string) []map[string]any {
	msgs := make([]map[string]any, 0, len(steps)+1)
	for _, s := range steps {
		msgs = append(msgs, map[string]any{"Command": command, "Status": s.status, "PercentComplete": s.percent})
	}
	return append(msgs, map[string]any{"Command": command, "Status": "Complete"})
}

func installFailure(e *installError) map[string]any {
	return map[string]any{"Error": e.name, "ErrorDescription": e.description}
}
