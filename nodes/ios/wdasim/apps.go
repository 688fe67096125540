package wdasim

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"slices"
	"strings"

	"github.com/corral-farm/corral/nodes/sim"
)

// App states of /wda/apps/state (XCUIApplicationState). The simulated phone does not tell
// which apps run behind the one in front, so an installed app is in front or not running.
const (
	stateUnknown    = 0 // not installed
	stateNotRunning = 1
	stateForeground = 4
)

type bundleArgs struct {
	BundleID    *string         `json:"bundleId"`
	Arguments   json.RawMessage `json:"arguments"`
	Environment json.RawMessage `json:"environment"`
}

func bundleOf(c *call) (bundleArgs, error) {
	var a bundleArgs
	if err := decodeArgs(c, &a); err != nil {
		return a, err
	}
	if a.BundleID == nil || *a.BundleID == "" {
		return a, errInvalidArgument("bundleId is required, e.g. com.corral.notes")
	}
	return a, nil
}

// launchApp answers POST /session/:sid/wda/apps/launch.
func (s *Server) launchApp(c *call) (any, error) {
	a, err := bundleOf(c)
	if err != nil {
		return nil, err
	}
	var l launch
	if err := decodeLaunch(a.Arguments, a.Environment, &l); err != nil {
		return nil, err
	}
	return nil, s.open(c.ctx, *a.BundleID, l)
}

// activateApp answers POST /session/:sid/wda/apps/activate: the app comes to the front as it was
// launched before.
func (s *Server) activateApp(c *call) (any, error) {
	a, err := bundleOf(c)
	if err != nil {
		return nil, err
	}
	if err := s.bringUp(c.ctx, *a.BundleID); err != nil {
		return nil, errUnknown("Cannot activate " + clipText(*a.BundleID) + ": " + err.Error())
	}
	return nil, nil
}

// maxNamed bounds the installed apps an error names.
const maxNamed = 30

// bringUp has the phone show bundle, one the catalog (if any) lists as installed: the phone's
// own apps on their pages, an app installed later on a plain page of its own.
func (s *Server) bringUp(ctx context.Context, bundle string) error {
	if s.catalog == nil {
		return s.phone.LaunchApp(ctx, bundle)
	}
	installed := s.catalog.InstalledApps()
	if !slices.Contains(installed, bundle) {
		if len(installed) > maxNamed {
			installed = append(installed[:maxNamed:maxNamed], "…")
		}
		return fmt.Errorf("%w: no app with bundle id %q is installed (installed: %s)", sim.ErrUnknownPackage,
			clipText(bundle), strings.Join(installed, ", "))
	}
	return s.phone.ShowApp(ctx, bundle)
}

// open launches bundle and remembers how.
func (s *Server) open(ctx context.Context, bundle string, l launch) error {
	if err := s.bringUp(ctx, bundle); err != nil {
		return errUnknown("Cannot launch " + clipText(bundle) + ": " + err.Error())
	}
	s.mu.Lock()
	s.launched[bundle] = l // bounded: only installed packages launch
	s.mu.Unlock()
	return nil
}

// terminateApp answers POST /session/:sid/wda/apps/terminate: whether the app was running.
func (s *Server) terminateApp(c *call) (any, error) {
	a, err := bundleOf(c)
	if err != nil {
		return nil, err
	}
	st, err := s.stateOf(c.ctx, *a.BundleID)
	if err != nil || st == stateUnknown {
		return false, err
	}
	stop := s.phone.TerminateApp
	if s.catalog != nil { // installed as the catalog says, maybe not on the phone's own list
		stop = s.phone.StopApp
	}
	if err := stop(c.ctx, *a.BundleID); err != nil {
		return nil, err
	}
	return st >= stateForeground, nil
}

// appState answers POST /session/:sid/wda/apps/state.
func (s *Server) appState(c *call) (any, error) {
	a, err := bundleOf(c)
	if err != nil {
		return nil, err
	}
	return s.stateOf(c.ctx, *a.BundleID)
}

func (s *Server) stateOf(ctx context.Context, bundle string) (int, error) {
	var pkgs []string
	if s.catalog != nil {
		pkgs = s.catalog.InstalledApps()
	} else if p, err := s.phone.ListPackages(ctx); err != nil {
		return 0, err
	} else {
		pkgs = p
	}
	if !slices.Contains(pkgs, bundle) {
		return stateUnknown, nil
	}
	front, err := s.phone.ForegroundApp(ctx)
	if err != nil {
		return 0, err
	}
	if front == bundle {
		return stateForeground, nil
	}
	return stateNotRunning, nil
}

// activeAppInfo answers GET /wda/activeAppInfo.
func (s *Server) activeAppInfo(c *call) (any, error) {
	front, err := s.phone.ForegroundApp(c.ctx)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	l := s.launched[front]
	s.mu.Unlock()
	args, env := l.args, l.env
	if args == nil {
		args = []string{}
	}
	if env == nil {
		env = map[string]string{}
	}
	return map[string]any{
		"pid":              pidOf(front),
		"bundleId":         front,
		"name":             "", // XCUIApplication.identifier, empty for an app as for WebDriverAgent
		"processArguments": map[string]any{"args": args, "env": env},
	}, nil
}

// pidOf makes a stable process id for a bundle.
func pidOf(bundle string) int {
	h := fnv.New32a()
	_, _ = h.Write([]byte(bundle))
	return 100 + int(h.Sum32()%60000)
}

// decodeLaunch decodes launch arguments (an array of strings) and environment (an object of
// strings); either may be absent or null.
func decodeLaunch(args, env json.RawMessage, l *launch) error {
	if len(args) > 0 && string(args) != "null" {
		if err := json.Unmarshal(args, &l.args); err != nil {
			return errInvalidArgument("arguments must be an array of strings")
		}
	}
	if len(env) > 0 && string(env) != "null" {
		if err := json.Unmarshal(env, &l.env); err != nil {
			return errInvalidArgument("environment must be an object of strings")
		}
	}
	return nil
}
