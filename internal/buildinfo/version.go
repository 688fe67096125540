// Package buildinfo says which Corral is running: one version for `corral version`, the
// gateway's MCP serverInfo and the nodes' micro services, so that they cannot disagree.
package buildinfo

import (
	"runtime/debug"
	"strings"
)

// release is set by release builds at link time:
//
//	-ldflags "-X github.com/corral-farm/corral/internal/buildinfo.release=1.2.3"
//
// (deploy/Dockerfile passes its VERSION build argument so).
var release = ""

// devVersion is what a build from a work tree calls itself.
const devVersion = "0.1.0-dev"

// Version returns the release version, or for a development build 0.1.0-dev with the commit it
// was built from as semver build metadata (0.1.0-dev+1a2b3c4d5e6f, .dirty when the tree had
// changes) where the Go toolchain recorded it. Always a valid semantic version: NATS micro
// services require one.
func Version() string {
	if release != "" {
		return strings.TrimPrefix(release, "v")
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return devVersion
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" && !strings.Contains(v, "+") {
		return strings.TrimPrefix(v, "v") // go install …@vX.Y.Z
	}
	return devVersion + vcsMetadata(bi.Settings)
}

// vcsMetadata is "+<revision>" (and ".dirty") from the build's VCS stamps, or "".
func vcsMetadata(settings []debug.BuildSetting) string {
	var rev, dirty string
	for _, s := range settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value[:min(12, len(s.Value))]
		case "vcs.modified":
			if s.Value == "true" {
				dirty = ".dirty"
			}
		}
	}
	if rev == "" {
		return ""
	}
	return "+" + rev + dirty
}
