package wda

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
)

// AppInfo describes the app in front.
type AppInfo struct {
	BundleID string
	Name     string
	PID      int
	Args     []string          // the arguments it was launched with, when WebDriverAgent launched it
	Env      map[string]string // likewise its environment
}

// App states, as /wda/apps/state answers them (XCUIApplicationState).
const (
	AppUnknown           = 0 // not installed
	AppNotRunning        = 1
	AppSuspended         = 2
	AppRunningBackground = 3
	AppRunningForeground = 4
)

const (
	maxAppState = AppRunningForeground
	maxBundleID = 255
)

// Launch starts the app with bundleID, or brings it to the front if it runs.
func (c *Client) Launch(ctx context.Context, bundleID string) error {
	if err := checkBundleID("launch", bundleID); err != nil {
		return err
	}
	args := map[string]any{"bundleId": bundleID, "arguments": []string{}, "environment": map[string]string{}}
	_, err := c.inSession(ctx, http.MethodPost, "/wda/apps/launch", args)
	return err
}

// Terminate stops the app with bundleID. It reports whether the app was running.
func (c *Client) Terminate(ctx context.Context, bundleID string) (bool, error) {
	const route = "/wda/apps/terminate"
	if err := checkBundleID("terminate", bundleID); err != nil {
		return false, err
	}
	v, err := c.inSession(ctx, http.MethodPost, route, map[string]string{"bundleId": bundleID})
	if err != nil {
		return false, err
	}
	b, err := decodeValue[bool](v, "terminated")
	return b, c.named(http.MethodPost, "/session/:sid"+route, err)
}

// AppState returns the state of the app with bundleID: AppUnknown (not installed) to
// AppRunningForeground.
func (c *Client) AppState(ctx context.Context, bundleID string) (int, error) {
	const route = "/wda/apps/state"
	if err := checkBundleID("app state", bundleID); err != nil {
		return 0, err
	}
	v, err := c.inSession(ctx, http.MethodPost, route, map[string]string{"bundleId": bundleID})
	if err != nil {
		return 0, err
	}
	n, err := decodeInt(v, "the app state", 0, maxAppState)
	return int(n), c.named(http.MethodPost, "/session/:sid"+route, err)
}

// ActiveApp describes the app in front. It needs no session.
func (c *Client) ActiveApp(ctx context.Context) (AppInfo, error) {
	const route = "/wda/activeAppInfo"
	v, err := c.get(ctx, route)
	if err != nil {
		return AppInfo{}, err
	}
	info, err := decodeAppInfo(v)
	return info, c.named(http.MethodGet, route, err)
}

func decodeAppInfo(v json.RawMessage) (AppInfo, error) {
	w, err := decodeValue[struct {
		BundleID string          `json:"bundleId"`
		Name     string          `json:"name"`
		PID      json.RawMessage `json:"pid"`
		Process  struct {
			Args []string          `json:"args"`
			Env  map[string]string `json:"env"`
		} `json:"processArguments"`
	}](v, "the active app")
	if err != nil {
		return AppInfo{}, err
	}
	if w.BundleID == "" || len(w.BundleID) > maxBundleID {
		return AppInfo{}, fmt.Errorf("%w: the active app's bundle id is %s", ErrBadAnswer, snippet([]byte(w.BundleID)))
	}
	info := AppInfo{BundleID: w.BundleID, Name: clip(w.Name, maxMessage), Args: w.Process.Args, Env: w.Process.Env}
	if len(w.PID) > 0 && !isNull(w.PID) {
		pid, err := decodeInt(w.PID, "the active app's pid", -1, 1<<31-1)
		if err != nil {
			return AppInfo{}, err
		}
		info.PID = int(pid)
	}
	return info, nil
}

func checkBundleID(op, id string) error {
	if id == "" || len(id) > maxBundleID {
		return fmt.Errorf("wda: %s: the bundle id %q must be 1 to %d bytes, e.g. com.apple.Preferences", op, id, maxBundleID)
	}
	return nil
}
