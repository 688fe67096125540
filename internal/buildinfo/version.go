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

// described is `git describe --always --dirty` of the work tree a development build came from,
// set at link time by make build (and the Dockerfiles' DESCRIBE build argument):
//
//	-ldflags "-X github.com/corral-farm/corral/internal/buildinfo.described=1a2b3c4d5e6f-dirty"
//
// The Go toolchain's own VCS stamps are missing where GOFLAGS has -buildvcs=false, and
// without either every build calls itself 0.1.0-dev: the versions of a mixed farm could not be
// told apart.
var described = ""

// devVersion is what a build from a work tree calls itself.
const devVersion = "0.1.0-dev"

// Version returns the release version, or for a development build 0.1.0-dev with the commit it
// was built from as semver build metadata (0.1.0-dev+1a2b3c4d5e6f, .dirty when the tree had
// changes) where the build stamped it (described) or the Go toolchain recorded it. Always a
// valid semantic version: NATS micro services require one.
func Version() string {
	if release != "" {
		return strings.TrimPrefix(release, "v")
	}
	if meta := describedMetadata(described); meta != "" {
		return devVersion + meta
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

// describedMetadata is git describe's output as semver build metadata: "+1a2b3c4d5e6f.dirty"
// of "1a2b3c4d5e6f-dirty", "+v0.2.0-3-g1a2b3c4d5e6f" of a tag's; "" of "". Characters
// semver does not allow there become '-'.
func describedMetadata(d string) string {
	d = strings.TrimSpace(d)
	if rest, ok := strings.CutSuffix(d, "-dirty"); ok {
		d = rest + ".dirty"
	}
	var ids []string
	for id := range strings.SplitSeq(d, ".") {
		if id == "" {
			continue // semver allows no empty identifier
		}
		ids = append(ids, strings.Map(func(r rune) rune {
			if r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
				return r
			}
			return '-'
		}, id))
	}
	if len(ids) == 0 || ids[0] == "dirty" && len(ids) == 1 {
		return ""
	}
	return "+" + strings.Join(ids, ".")
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
