package tools

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"reflect"
	"slices"
	"strings"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/nodes/agent/model"
	"github.com/corral-farm/corral/nodes/device"
)

// OpsConfig is what some ops need from the node's configuration.
type OpsConfig struct {
	// Passcodes unlock locked devices (unlock_phone). Secrets: no op logs or returns them.
	Passcodes Passcodes
	// MaxAppBytes bounds the apps app_install downloads (0: MaxAppBytes, 1 GiB).
	MaxAppBytes int64
	// HTTPClient downloads apps (nil: one without a timeout of its own: the task's ctx bounds
	// the download).
	HTTPClient *http.Client
	// AppSources are where app_install may take apps from: host names ("apps.example.com", or
	// ".example.com" for its subdomains too), "*" for any host with public addresses only, and
	// absolute directories ("/srv/apps"). A host named (not matched by "*") may be local or
	// private ("localhost", "10.0.0.7", "apps.lan"). Empty: nowhere on a Shared node, anywhere
	// the node can reach otherwise (one user's laptop).
	AppSources []string
	// Shared says that the node serves a shared farm (callers are authenticated, or the node
	// runs on its own): app_install takes apps only from AppSources.
	Shared bool
	// Vision reaches the farm's vision workers (a *vision.Client on the node's NATS connection):
	// tap_ocr, tap_cv and swipe_to_tap_* read screens without a UI tree with it, and peek lists
	// their elements. Nil: no worker, and those tools say to start `corral vision`.
	Vision Vision
	// Model is the language model of agent tasks (run_agent_task, ai_action, ai_query): any
	// OpenAI-compatible server. Nil: none configured, and those tools say how to configure one.
	Model model.Chatter
	// Screenshots keep the screens agent tasks' steps began and ended on, and the marked
	// screens of actions given pre_mark_operation, which their records name (a
	// nodes.ScreenshotSaver). Nil: the records name none.
	Screenshots ScreenshotSaver
	// Log is the node's logger: agent tasks log how they ended and their model's failures
	// (never a goal, nor the model's key). Nil: they log nothing.
	Log *slog.Logger
}

// ScreenshotSaver keeps a task's JPEG screenshot and returns the name a reader finds it by.
type ScreenshotSaver interface {
	SaveScreenshot(ctx context.Context, task string, jpeg []byte) (string, error)
}

// DefaultOps is every op an edge node serves, with nothing configured.
func DefaultOps() Ops { return DefaultOpsWith(OpsConfig{}) }

// DefaultOpsWith is every op an edge node serves (one per Tool of All), configured by c: each
// runs with the node's Env, so that sequence steps run these very ops.
func DefaultOpsWith(c OpsConfig) Ops { return newEnv(c).Ops }

// Platforms returns the names of the platforms ps (those Corral has a driver for, as `corral
// up` registers them), sorted: the platform values the tools offer agents, so that none is
// offered that no driver serves.
func Platforms(ps []device.Platform) []string {
	out := make([]string, 0, len(ps))
	for _, p := range ps {
		out = append(out, p.Name)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// ToolPlatforms returns the platforms of ps whose drivers can serve tool (they have the
// abilities it needs, and it is not among their gaps), sorted.
func ToolPlatforms(ps []device.Platform, tool string) []string {
	t, _ := Lookup(tool)
	var out []string
	for _, p := range ps {
		if !slices.Contains(p.Gaps, tool) && t.servedBy(p.Driver) {
			out = append(out, p.Name)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// UnsupportedMessage says that tool cannot run on dev and which platforms of ps can, with how many
// of their devices the farm has (offline ones aside): "back is not supported on ios devices;
// platforms that can: android (3 in this farm)". The gateway puts it before the node's own explanation: the node
// knows what its driver lacks, the gateway knows the farm.
func UnsupportedMessage(ps []device.Platform, tool string, dev broker.DeviceEntry, farm []broker.DeviceEntry) string {
	can := ToolPlatforms(ps, tool)
	what := fmt.Sprintf("%s is not supported on %s devices", tool, dev.Platform)
	if slices.Contains(can, dev.Platform) {
		what = fmt.Sprintf("%s is not supported by the driver of %s (%s)", tool, dev.Serial, dev.Platform)
	}
	if len(can) == 0 {
		return what + "; no platform Corral drives can serve it yet"
	}
	parts := make([]string, len(can))
	for i, p := range can {
		n := 0
		for _, d := range farm {
			if d.Platform == p && d.Serial != dev.Serial && d.State != broker.StateOffline {
				n++
			}
		}
		parts[i] = fmt.Sprintf("%s (%d in this farm)", p, n)
	}
	return what + "; platforms that can: " + strings.Join(parts, ", ")
}

// servedBy says whether drivers of type d have every ability t needs (a nil d has them all).
func (t Tool) servedBy(d reflect.Type) bool {
	for _, n := range t.Needs {
		if d != nil && !n.servedBy(d) {
			return false
		}
	}
	return true
}
