package console

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"
)

// maxActionBody bounds an action's body: the text of type (the input tool takes 10,000 bytes)
// with room for JSON's escapes.
const maxActionBody = 64 << 10

// maxSwipeSeconds bounds a drag's duration: a person's drag on the screen, not a script's.
const maxSwipeSeconds = 10

// actionBody is every argument an action's body may carry; each action takes its own.
type actionBody struct {
	X        *float64 `json:"x"`
	Y        *float64 `json:"y"`
	FromX    *float64 `json:"from_x"`
	FromY    *float64 `json:"from_y"`
	ToX      *float64 `json:"to_x"`
	ToY      *float64 `json:"to_y"`
	Duration *float64 `json:"duration"`
	Text     *string  `json:"text"`
}

// decodeActionBody reads one JSON object with no fields but actionBody's; an empty body is
// an empty object.
func decodeActionBody(r io.Reader) (actionBody, error) {
	var b actionBody
	data, err := io.ReadAll(r)
	if err != nil {
		return b, fmt.Errorf("the body could not be read (%w); it must be a JSON object of at most %d bytes", err, maxActionBody)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return b, nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&b); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return b, fieldError(te)
		}
		return b, fmt.Errorf("the body is not a JSON object of the action's arguments: %w", err)
	}
	if dec.More() {
		return b, errors.New("the body holds more than one JSON value")
	}
	return b, nil
}

// fieldError names the field of a value the body cannot hold there, and what it takes, as /mcp
// does: a number beyond float64 (1e309) is out of range, not Go's "cannot unmarshal".
func fieldError(te *json.UnmarshalTypeError) error {
	number, huge := strings.CutPrefix(te.Value, "number ")
	if huge && te.Type != nil && te.Type.Kind() == reflect.Float64 {
		return fmt.Errorf("%s: %s is out of range: no number beyond ±1.8e308 can be used; %s", te.Field, number, takes(te.Field))
	}
	return fmt.Errorf("%s is a JSON %s; %s", te.Field, te.Value, takes(te.Field))
}

// takes says what a field of the body takes.
func takes(field string) string {
	switch field {
	case "text":
		return "text is a string, the text to type into the focused field"
	case "duration":
		return fmt.Sprintf("duration is a number of seconds, more than 0 and at most %d", maxSwipeSeconds)
	}
	return field + " is a number, a point on the screen: 0 to 1 of its width or height"
}

// given names the fields the body set.
func (b actionBody) given() []string {
	var out []string
	for _, f := range []struct {
		name string
		set  bool
	}{{"x", b.X != nil}, {"y", b.Y != nil}, {"from_x", b.FromX != nil}, {"from_y", b.FromY != nil}, {"to_x", b.ToX != nil},
		{"to_y", b.ToY != nil}, {"duration", b.Duration != nil}, {"text", b.Text != nil}} {
		if f.set {
			out = append(out, f.name)
		}
	}
	return out
}

// only refuses fields other than these.
func (b actionBody) only(action string, names ...string) error {
	for _, g := range b.given() {
		if !slices.Contains(names, g) {
			return fmt.Errorf("%s takes %v, not %s", action, names, g)
		}
	}
	return nil
}

// relative checks a coordinate: given, and within the screen (0 to 1).
func relative(name string, v *float64) (float64, error) {
	switch {
	case v == nil:
		return 0, fmt.Errorf("%s is missing: a point on the screen, 0 to 1 of its width or height", name)
	case !(*v >= 0 && *v <= 1):
		return 0, fmt.Errorf("%s is %g: a point on the screen is 0 to 1 of its width or height", name, *v)
	}
	return *v, nil
}

// tapArgs are tap_xy's: the point clicked, as a fraction of the screen (the driver maps it to
// the device's pixels).
func tapArgs(b actionBody) (map[string]any, error) {
	if err := b.only("tap", "x", "y"); err != nil {
		return nil, err
	}
	x, err := relative("x", b.X)
	if err != nil {
		return nil, err
	}
	y, err := relative("y", b.Y)
	if err != nil {
		return nil, err
	}
	return map[string]any{"x": x, "y": y}, nil
}

// swipeArgs are swipe_coordinate's: a drag from one point to another, taking duration seconds.
func swipeArgs(b actionBody) (map[string]any, error) {
	if err := b.only("swipe", "from_x", "from_y", "to_x", "to_y", "duration"); err != nil {
		return nil, err
	}
	args := map[string]any{}
	for _, p := range []struct {
		name string
		v    *float64
	}{{"from_x", b.FromX}, {"from_y", b.FromY}, {"to_x", b.ToX}, {"to_y", b.ToY}} {
		v, err := relative(p.name, p.v)
		if err != nil {
			return nil, err
		}
		args[p.name] = v
	}
	if d := b.Duration; d != nil {
		if !(*d > 0 && *d <= maxSwipeSeconds) {
			return nil, fmt.Errorf("duration is %g seconds; a swipe takes more than 0 and at most %d", *d, maxSwipeSeconds)
		}
		args["duration"] = *d
	}
	return args, nil
}

// typeArgs are input's: the text to type into the focused field.
func typeArgs(b actionBody) (map[string]any, error) {
	if err := b.only("type", "text"); err != nil {
		return nil, err
	}
	if b.Text == nil || *b.Text == "" {
		return nil, errors.New("text is missing: the text to type into the focused field")
	}
	return map[string]any{"text": *b.Text}, nil
}
