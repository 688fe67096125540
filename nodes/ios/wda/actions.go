package wda

import (
	"fmt"
	"time"
)

// W3C pointer actions (WebDriver §17), the part a swipe needs. Durations are milliseconds and
// coordinates points from the top left of the screen (origin "viewport").

// actions is the body of POST /session/:sid/actions.
type actions struct {
	Actions []inputSource `json:"actions"`
}

type inputSource struct {
	Type       string        `json:"type"` // "pointer"
	ID         string        `json:"id"`
	Parameters pointerParams `json:"parameters"`
	Actions    []any         `json:"actions"`
}

type pointerParams struct {
	PointerType string `json:"pointerType"` // "touch"
}

type pointerMove struct {
	Type     string  `json:"type"` // "pointerMove"
	Duration int64   `json:"duration"`
	X        float64 `json:"x"`
	Y        float64 `json:"y"`
	Origin   string  `json:"origin"`
}

type pointerButton struct {
	Type   string `json:"type"` // "pointerDown", "pointerUp"
	Button int    `json:"button"`
}

type pause struct {
	Type     string `json:"type"` // "pause"
	Duration int64  `json:"duration"`
}

// maxGesture bounds a gesture's durations: WebDriverAgent would hold the phone for all of it.
const maxGesture = time.Hour

// swipeActions builds a swipe: move to the start, down, pause for hold, move to the end over d,
// up.
func swipeActions(fromX, fromY, toX, toY float64, d, hold time.Duration) (actions, error) {
	if err := checkPoint("swipe", fromX, fromY, toX, toY); err != nil {
		return actions{}, err
	}
	if d < 0 || hold < 0 || d > maxGesture || hold > maxGesture {
		return actions{}, fmt.Errorf("wda: swipe: duration %s and hold %s must be from 0 to %s", d, hold, maxGesture)
	}
	steps := []any{
		pointerMove{Type: "pointerMove", Duration: 0, X: fromX, Y: fromY, Origin: "viewport"},
		pointerButton{Type: "pointerDown", Button: 0},
	}
	if hold > 0 {
		steps = append(steps, pause{Type: "pause", Duration: hold.Milliseconds()})
	}
	steps = append(steps,
		pointerMove{Type: "pointerMove", Duration: d.Milliseconds(), X: toX, Y: toY, Origin: "viewport"},
		pointerButton{Type: "pointerUp", Button: 0},
	)
	return actions{Actions: []inputSource{{
		Type:       "pointer",
		ID:         "finger1",
		Parameters: pointerParams{PointerType: "touch"},
		Actions:    steps,
	}}}, nil
}
