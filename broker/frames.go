package broker

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
)

// Live screens, for the console (mcp/console). A gateway that has someone looking at a device
// asks the device's node to watch it (EndpointWatch) and repeats the ask while anyone looks;
// the node captures the screen at the rate and width asked and publishes each frame as JPEG on
// FramesSubject(node, serial), until every watcher has stopped or lapsed (WatchTTL). One
// capture serves every watcher: the node's loop is per device, and a gateway shares one
// subscription among its browsers. No watch, no capture: frames cost nothing unwatched.

// Bounds of a watch. A node clamps what it is asked into them.
const (
	// WatchTTL is how long a watch lasts after its last request: a gateway repeats its
	// request well within it (every second), and a gateway that vanished costs this much.
	WatchTTL = 5 * time.Second
	// WatchMaxFPS bounds the frames a second of one device.
	WatchMaxFPS = 5
	// WatchDefaultFPS is the rate of a request that names none.
	WatchDefaultFPS = 2
	// WatchMinWidth and WatchMaxWidth bound a frame's width in pixels; WatchDefaultWidth is
	// the width of a request that names none (a grid's thumbnail).
	WatchMinWidth     = 64
	WatchMaxWidth     = 1280
	WatchDefaultWidth = 360
	// MaxWatchers bounds the watchers (gateways) of one device on a node.
	MaxWatchers = 64
)

// WatchRequest starts, keeps up or stops one watcher's watch of a device's screen.
type WatchRequest struct {
	V      int    `json:"v"`
	Serial string `json:"serial"`
	// Watcher names who watches (a gateway's id, random per start): the node keeps one watch
	// per watcher and captures at the largest width and rate any of them asks.
	Watcher  string  `json:"watcher"`
	MaxWidth int     `json:"max_width,omitempty"` // frame width at most, px (default WatchDefaultWidth)
	FPS      float64 `json:"fps,omitempty"`       // frames a second (default WatchDefaultFPS)
	Stop     bool    `json:"stop,omitempty"`      // this watcher no longer looks
}

// Version returns the payload's wire version.
func (r *WatchRequest) Version() int { return r.V }

// WatchAnswer answers a WatchRequest: where the frames come, or why none will.
type WatchAnswer struct {
	V        int    `json:"v"`
	Subject  string `json:"subject,omitempty"` // FramesSubject(node, serial)
	Watchers int    `json:"watchers"`          // watchers of the device now, this one included
	Code     string `json:"code,omitempty"`    // unknown_device, bad_input
	Error    string `json:"error,omitempty"`
}

// ValidWatcher says whether id can name a watcher: 1 to 64 letters, digits, '-' and '_'.
func ValidWatcher(id string) bool {
	return len(id) <= 64 && validToken(id) && !strings.Contains(id, "=")
}

// FramesSubject is the subject a node publishes a device's frames on.
func FramesSubject(node, serial string) string { return fmt.Sprintf(FramesT, node, Token(serial)) }

// Frame is one captured screen of a watched device.
type Frame struct {
	Node     string // from the subject: the only node whose NATS user may publish there
	Serial   string
	Seq      uint64 // counts the frames of one capture loop, from 1
	Width    int
	Height   int
	Captured time.Time
	JPEG     []byte
}

// Headers of a frame message; the JPEG is the body.
const (
	hdrSerial   = "Corral-Serial"
	hdrSeq      = "Corral-Seq"
	hdrWidth    = "Corral-Width"
	hdrHeight   = "Corral-Height"
	hdrCaptured = "Corral-Captured"
)

// Msg returns the frame as a message on its node's subject.
func (f Frame) Msg() *nats.Msg {
	m := nats.NewMsg(FramesSubject(f.Node, f.Serial))
	m.Header.Set(hdrSerial, f.Serial)
	m.Header.Set(hdrSeq, strconv.FormatUint(f.Seq, 10))
	m.Header.Set(hdrWidth, strconv.Itoa(f.Width))
	m.Header.Set(hdrHeight, strconv.Itoa(f.Height))
	m.Header.Set(hdrCaptured, f.Captured.UTC().Format(time.RFC3339Nano))
	m.Data = f.JPEG
	return m
}

// ParseFrame reads a frame message. The node is the subject's (which only that node may
// publish on), and the serial must be the one the subject names.
func ParseFrame(m *nats.Msg) (Frame, error) {
	rest, ok := strings.CutPrefix(m.Subject, Prefix+".frames.")
	node, token, two := strings.Cut(rest, ".")
	if !ok || !two || node == "" || strings.Contains(token, ".") {
		return Frame{}, fmt.Errorf("frame on %q: not a frames subject (%s)", m.Subject, Frames)
	}
	f := Frame{Node: node, Serial: m.Header.Get(hdrSerial), JPEG: m.Data}
	if Token(f.Serial) != token {
		return Frame{}, fmt.Errorf("frame on %s names device %q: not the subject's", m.Subject, f.Serial)
	}
	var errs []error
	var err error
	f.Seq, err = strconv.ParseUint(m.Header.Get(hdrSeq), 10, 64)
	errs = append(errs, err)
	f.Width, err = strconv.Atoi(m.Header.Get(hdrWidth))
	errs = append(errs, err)
	f.Height, err = strconv.Atoi(m.Header.Get(hdrHeight))
	errs = append(errs, err)
	f.Captured, err = time.Parse(time.RFC3339Nano, m.Header.Get(hdrCaptured))
	errs = append(errs, err)
	if err := errors.Join(errs...); err != nil {
		return Frame{}, fmt.Errorf("frame of %s on %s: bad headers: %w", f.Serial, m.Subject, err)
	}
	if f.Width <= 0 || f.Height <= 0 || len(f.JPEG) == 0 {
		return Frame{}, fmt.Errorf("frame of %s on %s: empty (%dx%d, %d bytes)", f.Serial, m.Subject, f.Width, f.Height, len(f.JPEG))
	}
	return f, nil
}
