package wda

import (
	"context"
	"encoding/json"
	"net/http"
)

// Status is what GET /status says about WebDriverAgent and the phone.
type Status struct {
	Ready     bool
	State     string // "success" when ready
	Message   string
	OSName    string // "iOS"
	OSVersion string
	IP        string // the phone's Wi-Fi address; "" when it has none
	BundleID  string // the runner's bundle id, com.facebook.WebDriverAgentRunner unless re-signed
	SessionID string // the session WebDriverAgent has now, whoever made it; "" when none
}

// Status asks whether WebDriverAgent is up. It needs no session.
func (c *Client) Status(ctx context.Context) (Status, error) {
	const route = "/status"
	v, sid, err := c.call(ctx, http.MethodGet, route, route, nil)
	if err != nil {
		return Status{}, err
	}
	st, err := decodeStatus(v)
	st.SessionID = sid
	return st, c.named(http.MethodGet, route, err)
}

// decodeStatus decodes the value of /status. Older WebDriverAgents have no "ready": their state
// "success" says it.
func decodeStatus(v json.RawMessage) (Status, error) {
	w, err := decodeValue[struct {
		Ready   *bool  `json:"ready"`
		State   string `json:"state"`
		Message string `json:"message"`
		OS      struct {
			Name    string `json:"name"`
			Version string `json:"version"`
		} `json:"os"`
		IOS struct {
			IP *string `json:"ip"`
		} `json:"ios"`
		Build struct {
			BundleID string `json:"productBundleIdentifier"`
		} `json:"build"`
	}](v, "the status")
	if err != nil {
		return Status{}, err
	}
	st := Status{
		Ready:     w.State == "success",
		State:     clip(w.State, maxCode),
		Message:   clip(w.Message, maxMessage),
		OSName:    clip(w.OS.Name, maxCode),
		OSVersion: clip(w.OS.Version, maxCode),
		BundleID:  clip(w.Build.BundleID, maxMessage),
	}
	if w.Ready != nil {
		st.Ready = *w.Ready
	}
	if w.IOS.IP != nil {
		st.IP = clip(*w.IOS.IP, maxCode)
	}
	return st, nil
}
