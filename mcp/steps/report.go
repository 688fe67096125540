package steps

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"time"
)

// Status is how a step ended.
type Status string

// The statuses of a step.
const (
	Passed  Status = "passed"
	Failed  Status = "failed"
	Skipped Status = "skipped" // not run: an earlier step failed, or the run was interrupted
)

// Result is one step of a run.
type Result struct {
	Index     int            `json:"index"` // 1-based, as in the steps file
	Name      string         `json:"name,omitempty"`
	Method    string         `json:"method"` // as written: the action's method or the step's tool
	Tool      string         `json:"tool"`
	Arguments map[string]any `json:"arguments,omitempty"` // as sent
	Status    Status         `json:"status"`
	// Ignored marks a failed step whose options said ignore_error: the run went on, and it does
	// not fail the run.
	Ignored  bool          `json:"ignored,omitempty"`
	Started  time.Time     `json:"started,omitzero"`
	Duration time.Duration `json:"-"`                // durationMs in JSON
	Error    string        `json:"error,omitempty"`  // why it failed: the tool's error text
	Reason   string        `json:"reason,omitempty"` // why it was skipped
	Text     string        `json:"text,omitempty"`   // the tool's text result
	// Expect is the text the step expected on the screen (options.expect); ExpectFailed marks a
	// step whose tool passed and whose screen did not show it (or could not be read).
	Expect       string `json:"expect,omitempty"`
	ExpectFailed bool   `json:"expectFailed,omitempty"`
}

// Report is a whole run, step by step.
type Report struct {
	Name     string        `json:"name"`
	Serial   string        `json:"serial,omitempty"`
	Platform string        `json:"platform,omitempty"`
	Started  time.Time     `json:"started"`
	Duration time.Duration `json:"-"` // durationMs in JSON
	Tests    int           `json:"tests"`
	Passed   int           `json:"passed"`
	Failed   int           `json:"failed"`  // failures that fail the run
	Ignored  int           `json:"ignored"` // failures the steps said to ignore
	Skipped  int           `json:"skipped"`
	Steps    []Result      `json:"steps"`
}

// add appends a step's result and counts it.
func (r *Report) add(res Result) {
	r.Steps = append(r.Steps, res)
	r.Tests++
	switch {
	case res.Status == Passed:
		r.Passed++
	case res.Status == Failed && res.Ignored:
		r.Ignored++
	case res.Status == Failed:
		r.Failed++
	default:
		r.Skipped++
	}
}

// OK reports whether the run passed: no step failed but those told to ignore their errors.
func (r *Report) OK() bool { return r.Failed == 0 }

// FirstFailure returns the first step that failed the run, or nil.
func (r *Report) FirstFailure() *Result {
	for i := range r.Steps {
		if s := &r.Steps[i]; s.Status == Failed && !s.Ignored {
			return s
		}
	}
	return nil
}

// WriteJSON writes the report as indented JSON.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(r); err != nil {
		return fmt.Errorf("write JSON report: %w", err)
	}
	return nil
}

// ReadJSON reads a report WriteJSON wrote.
func ReadJSON(rd io.Reader) (*Report, error) {
	var r Report
	if err := json.NewDecoder(rd).Decode(&r); err != nil {
		return nil, fmt.Errorf("read JSON report: %w", err)
	}
	return &r, nil
}

// Durations go out as milliseconds (fractions keep the nanoseconds), as the task records do.
type (
	resultFields Result // without the methods, so that marshalling does not recurse
	reportFields Report
	resultJSON   struct {
		resultFields
		DurationMS float64 `json:"durationMs"`
	}
	reportJSON struct {
		reportFields
		DurationMS float64 `json:"durationMs"`
	}
)

func millis(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func fromMillis(ms float64) time.Duration {
	return time.Duration(math.Round(ms * float64(time.Millisecond)))
}

// MarshalJSON writes the duration as durationMs.
func (r Result) MarshalJSON() ([]byte, error) {
	return json.Marshal(resultJSON{resultFields(r), millis(r.Duration)})
}

// UnmarshalJSON reads what MarshalJSON wrote.
func (r *Result) UnmarshalJSON(b []byte) error {
	var j resultJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*r = Result(j.resultFields)
	r.Duration = fromMillis(j.DurationMS)
	return nil
}

// MarshalJSON writes the duration as durationMs.
func (r Report) MarshalJSON() ([]byte, error) {
	return json.Marshal(reportJSON{reportFields(r), millis(r.Duration)})
}

// UnmarshalJSON reads what MarshalJSON wrote.
func (r *Report) UnmarshalJSON(b []byte) error {
	var j reportJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*r = Report(j.reportFields)
	r.Duration = fromMillis(j.DurationMS)
	return nil
}
