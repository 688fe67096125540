package wdasim

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// W3C actions (WebDriver §17) of one touch pointer, performed on the phone as taps and swipes.
// A press that does not move is a tap held for as long as it was down; one that moves is a swipe
// from where it went down to where it came up, held for the time before it first moved. The
// path between is not kept: the simulated phone swipes in straight lines.

// Bounds on an action chain, far above what a gesture needs.
const (
	maxSources = 8
	maxSteps   = 1000
	maxMillis  = maxHold * 1000
)

// gesture is one press of the pointer, in points.
type gesture struct {
	from, to [2]float64
	hold     time.Duration // down and still before moving; the whole press for a tap
	move     time.Duration // from the first move to the release
	moved    bool
}

type w3cActions struct {
	Actions []struct {
		Type       string `json:"type"`
		ID         string `json:"id"`
		Parameters struct {
			PointerType string `json:"pointerType"`
		} `json:"parameters"`
		Actions []w3cStep `json:"actions"`
	} `json:"actions"`
}

type w3cStep struct {
	Type     string          `json:"type"`
	Duration *float64        `json:"duration"`
	X        *float64        `json:"x"`
	Y        *float64        `json:"y"`
	Origin   json.RawMessage `json:"origin"`
	Button   *float64        `json:"button"`
}

// actions answers POST /session/:sid/actions.
func (s *Server) actions(c *call) (any, error) {
	gs, err := parseActions(c.body)
	if err != nil {
		return nil, err
	}
	for _, g := range gs {
		if err := s.gesture(c, g); err != nil {
			return nil, err
		}
	}
	return nil, nil
}

// gesture performs one press on the phone, taking as long as the press lasts. Once begun it
// runs to its end whatever the client does: XCTest has no way to take a touch back.
func (s *Server) gesture(c *call, g gesture) error {
	err := s.onScreen(c.ctx, g.from, g.to)
	if err == nil {
		take(g.hold + g.move)
	}
	if err == nil && !s.isScreenOff() { // a dark screen takes no touches
		from, _ := s.pixel(g.from[0], g.from[1])
		to, _ := s.pixel(g.to[0], g.to[1])
		ctx := context.WithoutCancel(c.ctx)
		if g.moved {
			err = s.phone.Swipe(ctx, from, to, g.move, g.hold)
		} else {
			err = s.phone.Tap(ctx, from, g.hold)
		}
	}
	if !g.moved {
		return s.touchError(c.ctx, err, g.from[0], g.from[1])
	}
	return s.touchError(c.ctx, err, g.from[0], g.from[1], g.to[0], g.to[1])
}

// parseActions turns an action chain into the presses it makes.
func parseActions(body []byte) ([]gesture, error) {
	var req w3cActions
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, errInvalidArgument("the actions are not W3C actions: " + clipText(err.Error()))
	}
	if len(req.Actions) == 0 || len(req.Actions) > maxSources {
		return nil, errInvalidArgument(fmt.Sprintf("actions must hold 1 to %d input sources", maxSources))
	}
	var out []gesture
	pointers := 0
	for _, src := range req.Actions {
		if len(src.Actions) > maxSteps {
			return nil, errInvalidArgument(fmt.Sprintf("an input source holds more than %d actions", maxSteps))
		}
		switch src.Type {
		case "none":
			continue // pauses only
		case "pointer":
		default:
			return nil, unsupported(fmt.Sprintf("%q input sources are not supported by the simulated phone; use one touch pointer", clipText(src.Type)))
		}
		if pointers++; pointers > 1 {
			return nil, unsupported("multi-touch is not supported by the simulated phone; use one touch pointer")
		}
		gs, err := presses(src.Actions)
		if err != nil {
			return nil, err
		}
		out = append(out, gs...)
	}
	return out, nil
}

// presses follows one pointer through its steps.
func presses(steps []w3cStep) ([]gesture, error) {
	var (
		out  []gesture
		pos  [2]float64 // W3C pointers start at (0, 0)
		down bool
		g    gesture
	)
	for i, st := range steps {
		d, err := millis(st.Duration, i)
		if err != nil {
			return nil, err
		}
		switch st.Type {
		case "pause":
			if down && !g.moved {
				g.hold += d
			} else if down {
				g.move += d
			}
		case "pointerMove":
			next, err := target(st, pos, i)
			if err != nil {
				return nil, err
			}
			if down {
				if next != pos {
					g.moved = true
				}
				if g.moved {
					g.move += d
				} else {
					g.hold += d
				}
			}
			pos = next
		case "pointerDown":
			if !down {
				down, g = true, gesture{from: pos}
			}
		case "pointerUp":
			if down {
				down, g.to = false, pos
				out = append(out, g)
			}
		case "pointerCancel":
			down = false
		default:
			return nil, errInvalidArgument(fmt.Sprintf("action %d: %q is not a pointer action (pause, pointerMove, pointerDown, pointerUp, pointerCancel)", i, clipText(st.Type)))
		}
	}
	if down { // the chain ended with the finger down: WebDriverAgent lifts it
		g.to = pos
		out = append(out, g)
	}
	return out, nil
}

// target is where a pointerMove goes: origin "viewport" (the default) or "pointer" (relative).
func target(st w3cStep, pos [2]float64, i int) ([2]float64, error) {
	if st.X == nil || st.Y == nil {
		return pos, errInvalidArgument(fmt.Sprintf("action %d: pointerMove needs x and y", i))
	}
	var origin string
	if len(st.Origin) > 0 && string(st.Origin) != "null" {
		if json.Unmarshal(st.Origin, &origin) != nil {
			return pos, errInvalidArgument(fmt.Sprintf("action %d: element origins are not supported by the simulated phone; use \"viewport\" or \"pointer\"", i))
		}
	}
	switch origin {
	case "", "viewport":
		return [2]float64{*st.X, *st.Y}, nil
	case "pointer":
		return [2]float64{pos[0] + *st.X, pos[1] + *st.Y}, nil
	}
	return pos, errInvalidArgument(fmt.Sprintf("action %d: origin %q must be \"viewport\" or \"pointer\"", i, clipText(origin)))
}

func millis(d *float64, i int) (time.Duration, error) {
	if d == nil {
		return 0, nil
	}
	if !(*d >= 0 && *d <= maxMillis) {
		return 0, errInvalidArgument(fmt.Sprintf("action %d: duration %g must be 0 to %d milliseconds", i, *d, maxMillis))
	}
	return time.Duration(*d * float64(time.Millisecond)), nil
}

func unsupported(msg string) *wdaError {
	return &wdaError{http.StatusInternalServerError, "unsupported operation", msg}
}
