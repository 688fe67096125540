package agent_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/jpeg"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/image/draw"

	"github.com/corral-farm/corral/nodes/agent"
	"github.com/corral-farm/corral/nodes/agent/model"
	"github.com/corral-farm/corral/nodes/device"
	"github.com/corral-farm/corral/nodes/sim"
	"github.com/corral-farm/corral/nodes/uitree"
)

// phone is the Device the tests give the agent: a simulated phone behind a handful of tools,
// as the node's catalogue offers them, and a peek-like observation.
type phone struct{ *sim.Phone }

var _ agent.Device = phone{}

func newPhone(t *testing.T) phone {
	p := sim.New("SIM-AGENT", sim.WithSize(540, 1200)) // half size: rendering dominates the tests
	t.Cleanup(func() { _ = p.Close() })
	return phone{p}
}

func (phone) Tools() []model.Tool {
	obj := func(props string, required ...string) json.RawMessage {
		req, _ := json.Marshal(required)
		return json.RawMessage(`{"type":"object","properties":{` + props + `},"required":` + string(req) + `}`)
	}
	return []model.Tool{
		{Name: "tap", Description: "Tap the centre of a bbox from the element listing",
			Parameters: obj(`"bbox":{"type":"array","items":{"type":"number"},"minItems":4,"maxItems":4}`, "bbox")},
		{Name: "tap_xy", Description: "Tap a point, relative 0-1",
			Parameters: obj(`"x":{"type":"number"},"y":{"type":"number"}`, "x", "y")},
		{Name: "input", Description: "Type text into the focused field", Parameters: obj(`"text":{"type":"string"}`, "text")},
		{Name: "home", Description: "Go to the home screen", Parameters: obj("")},
		{Name: "swipe_direction", Description: "Swipe from the middle of the screen",
			Parameters: obj(`"direction":{"type":"string","enum":["up","down","left","right"]}`, "direction")},
	}
}

func (p phone) Call(ctx context.Context, name string, args json.RawMessage) (string, error) {
	var a struct {
		BBox      []float64 `json:"bbox"`
		X, Y      float64
		Text      string
		Direction string
	}
	if err := json.Unmarshal(args, &a); err != nil {
		return "", fmt.Errorf("arguments: %w", err)
	}
	size, err := p.ScreenSize(ctx)
	if err != nil {
		return "", err
	}
	at := func(x, y float64) (device.Point, error) {
		if x < 0 || x > 1 || y < 0 || y > 1 {
			return device.Point{}, fmt.Errorf("(%g, %g) is off the screen: coordinates are relative 0-1", x, y)
		}
		return device.Point{X: int(x * float64(size.Width-1)), Y: int(y * float64(size.Height-1))}, nil
	}
	switch name {
	case "tap", "tap_xy":
		x, y := a.X, a.Y
		if name == "tap" {
			if len(a.BBox) != 4 {
				return "", errors.New("bbox must be [left, top, right, bottom]")
			}
			x, y = (a.BBox[0]+a.BBox[2])/2, (a.BBox[1]+a.BBox[3])/2
		}
		pt, err := at(x, y)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("tapped (%d, %d)", pt.X, pt.Y), p.Tap(ctx, pt, 0)
	case "input":
		return "typed " + strconv.Quote(a.Text), p.InputText(ctx, a.Text)
	case "home":
		return "home screen", p.PressKey(ctx, "HOME")
	case "swipe_direction":
		to := map[string][2]float64{"up": {0.5, 0.3}, "down": {0.5, 0.8}, "left": {0.2, 0.6}, "right": {0.8, 0.6}}[a.Direction]
		if to == [2]float64{} {
			return "", fmt.Errorf("direction %q: use up, down, left or right", a.Direction)
		}
		from, _ := at(0.5, 0.6)
		dst, _ := at(to[0], to[1])
		return "swiped " + a.Direction, p.Swipe(ctx, from, dst, 300*time.Millisecond, 0)
	}
	return "", fmt.Errorf("no tool %q", name)
}

// Observe is a half-size JPEG and the UI tree listed as peek lists it.
func (p phone) Observe(ctx context.Context) (agent.Observation, error) {
	img, err := p.Screenshot(ctx)
	if err != nil {
		return agent.Observation{}, err
	}
	src, err := p.Source(ctx)
	if err != nil {
		return agent.Observation{}, err
	}
	els, err := uitree.Parse(src)
	if err != nil {
		return agent.Observation{}, err
	}
	size := img.Bounds().Size()
	small := image.NewRGBA(image.Rect(0, 0, size.X/2, size.Y/2))
	draw.ApproxBiLinear.Scale(small, small.Bounds(), img, img.Bounds(), draw.Src, nil)
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, small, &jpeg.Options{Quality: 60}); err != nil {
		return agent.Observation{}, err
	}
	var lines []string
	w, h := float64(size.X), float64(size.Y)
	for _, e := range els {
		r := e.Bounds.Intersect(image.Rectangle{Max: size})
		if r.Empty() || (e.Label() == "" && !e.Clickable) {
			continue
		}
		lines = append(lines, fmt.Sprintf("e%d [%s] %q [%.3f,%.3f,%.3f,%.3f] 1.00", len(lines)+1, e.Kind(), e.Label(),
			float64(r.Min.X)/w, float64(r.Min.Y)/h, float64(r.Max.X)/w, float64(r.Max.Y)/h))
	}
	return agent.Observation{JPEG: buf.Bytes(), Width: small.Bounds().Dx(), Height: small.Bounds().Dy(),
		Elements: strings.Join(lines, "\n")}, nil
}

// taps counts the taps the phone received.
func (p phone) taps() int {
	n := 0
	for _, l := range p.InputLog() {
		if strings.HasPrefix(l, "tap ") {
			n++
		}
	}
	return n
}

func (p phone) source(t *testing.T) string {
	t.Helper()
	s, err := p.Source(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func (p phone) foreground(t *testing.T) string {
	t.Helper()
	s, err := p.ForegroundApp(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return s
}
