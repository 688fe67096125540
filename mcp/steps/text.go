package steps

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// TextWriter writes a run's report for a terminal, one line per step as the steps finish, so a
// long run shows its progress:
//
//	run smoke: 6 steps on n1-p1
//	  1/6  passed     12ms  home
//	  2/6  FAILED     25ms  app_launch "open the app"
//	       error: app_launch on n1-p1 failed (driver_error): ...
//	  3/6  skipped       -  tap_xy
//	FAIL smoke: 1 failed (step 2 app_launch), 1 passed, 1 skipped in 52ms
type TextWriter struct {
	w     io.Writer
	total int
	err   error
}

// NewTextWriter returns a TextWriter on w.
func NewTextWriter(w io.Writer) *TextWriter { return &TextWriter{w: w} }

// maxErrorText bounds the error text a terminal line shows; the JSON report has all of it.
const maxErrorText = 1000

func (t *TextWriter) printf(format string, args ...any) {
	if t.err == nil {
		_, t.err = fmt.Fprintf(t.w, format, args...)
	}
}

// Begin writes the run's title.
func (t *TextWriter) Begin(name string, total int, serial string) {
	t.total = total
	on := ""
	if serial != "" {
		on = " on " + serial
	}
	t.printf("run %s: %d steps%s\n", name, total, on)
}

// Step writes one step's line, and its error below it.
func (t *TextWriter) Step(r Result) {
	status, took := string(r.Status), "-"
	if r.Status == Failed && !r.Ignored {
		status = "FAILED"
	}
	if r.Status != Skipped {
		took = r.Duration.Round(time.Millisecond).String()
	}
	label := r.Tool
	if r.Name != "" {
		label += fmt.Sprintf(" %q", r.Name)
	}
	if r.Ignored {
		label += " (ignore_error)"
	}
	width := len(fmt.Sprint(t.total))
	t.printf("  %*d/%d  %-7s  %7s  %s\n", width, r.Index, t.total, status, took, label)
	indent := strings.Repeat(" ", 2*width+5)
	if r.Status == Failed {
		msg := r.Error
		if len(msg) > maxErrorText {
			msg = strings.ToValidUTF8(msg[:maxErrorText], "") + "… (the JSON report has all of it)"
		}
		t.printf("%serror: %s\n", indent, strings.ReplaceAll(msg, "\n", "\n"+indent+"       "))
	}
}

// End writes the summary line.
func (t *TextWriter) End(r *Report) {
	verdict := "PASS"
	parts := []string{fmt.Sprintf("%d passed", r.Passed)}
	if f := r.FirstFailure(); f != nil {
		verdict = "FAIL"
		parts = append([]string{fmt.Sprintf("%d failed (step %d %s)", r.Failed, f.Index, f.Tool)}, parts...)
	}
	if r.Ignored > 0 {
		parts = append(parts, fmt.Sprintf("%d failed but ignored", r.Ignored))
	}
	if r.Skipped > 0 {
		parts = append(parts, fmt.Sprintf("%d skipped", r.Skipped))
	}
	t.printf("%s %s: %s in %s\n", verdict, r.Name, strings.Join(parts, ", "), r.Duration.Round(time.Millisecond))
}

// Err returns the first write error.
func (t *TextWriter) Err() error { return t.err }

// WriteText writes the whole report as a TextWriter does during a run.
func (r *Report) WriteText(w io.Writer) error {
	t := NewTextWriter(w)
	t.Begin(r.Name, len(r.Steps), r.Serial)
	for _, s := range r.Steps {
		t.Step(s)
	}
	t.End(r)
	return t.Err()
}
