package steps

import (
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// The JUnit XML that CI systems read (Jenkins, GitLab, GitHub actions): one testsuite per run,
// one testcase per step.
type (
	junitSuites struct {
		XMLName  xml.Name     `xml:"testsuites"`
		Name     string       `xml:"name,attr"`
		Tests    int          `xml:"tests,attr"`
		Failures int          `xml:"failures,attr"`
		Errors   int          `xml:"errors,attr"`
		Skipped  int          `xml:"skipped,attr"`
		Time     string       `xml:"time,attr"`
		Suites   []junitSuite `xml:"testsuite"`
	}
	junitSuite struct {
		Name       string          `xml:"name,attr"`
		Tests      int             `xml:"tests,attr"`
		Failures   int             `xml:"failures,attr"`
		Errors     int             `xml:"errors,attr"`
		Skipped    int             `xml:"skipped,attr"`
		Time       string          `xml:"time,attr"`
		Timestamp  string          `xml:"timestamp,attr,omitempty"`
		Hostname   string          `xml:"hostname,attr,omitempty"`
		Properties []junitProperty `xml:"properties>property,omitempty"`
		Cases      []junitCase     `xml:"testcase"`
	}
	junitProperty struct {
		Name  string `xml:"name,attr"`
		Value string `xml:"value,attr"`
	}
	junitCase struct {
		Name      string        `xml:"name,attr"`
		Classname string        `xml:"classname,attr"`
		Time      string        `xml:"time,attr"`
		Failure   *junitFailure `xml:"failure,omitempty"`
		Skipped   *junitSkipped `xml:"skipped,omitempty"`
		SystemOut string        `xml:"system-out,omitempty"`
		SystemErr string        `xml:"system-err,omitempty"`
	}
	junitFailure struct {
		Message string `xml:"message,attr"`
		Type    string `xml:"type,attr"`
		Text    string `xml:",chardata"`
	}
	junitSkipped struct {
		Message string `xml:"message,attr,omitempty"`
	}
)

// Bounds that keep a CI artifact readable: a failure's message attribute is one line, and a
// step's output (get_source's XML, say) is cut.
const (
	maxMessage   = 500
	maxSystemOut = 64 << 10
)

// WriteJUnit writes the report as JUnit XML: a testcase per step, <failure> for a failed step,
// <skipped/> for a skipped one. A failure the step said to ignore passes, its error in
// <system-err>.
func (r *Report) WriteJUnit(w io.Writer) error {
	suite := junitSuite{
		Name: r.Name, Tests: r.Tests, Failures: r.Failed, Skipped: r.Skipped, Time: seconds(r.Duration),
	}
	if !r.Started.IsZero() {
		suite.Timestamp = r.Started.UTC().Format(time.RFC3339)
	}
	if h, err := os.Hostname(); err == nil {
		suite.Hostname = h
	}
	for _, p := range []junitProperty{{"serial", r.Serial}, {"platform", r.Platform}} {
		if p.Value != "" {
			suite.Properties = append(suite.Properties, p)
		}
	}
	for _, s := range r.Steps {
		c := junitCase{Name: caseName(s), Classname: r.Name, Time: seconds(s.Duration), SystemOut: cut(s.Text, maxSystemOut)}
		switch {
		case s.Status == Failed && s.Ignored:
			c.SystemErr = "failed, error ignored (ignore_error): " + s.Error
		case s.Status == Failed:
			kind := "tool_error"
			if s.ExpectFailed {
				kind = "expect_failed" // the tool passed; the screen did not show the text
			}
			c.Failure = &junitFailure{Message: oneLine(s.Error), Type: kind, Text: s.Error}
		case s.Status == Skipped:
			c.Skipped = &junitSkipped{Message: s.Reason}
		}
		suite.Cases = append(suite.Cases, c)
	}
	doc := junitSuites{Name: r.Name, Tests: suite.Tests, Failures: suite.Failures, Skipped: suite.Skipped, Time: suite.Time,
		Suites: []junitSuite{suite}}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return fmt.Errorf("write JUnit report: %w", err)
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("write JUnit report: %w", err)
	}
	if _, err := io.WriteString(w, "\n"); err != nil {
		return fmt.Errorf("write JUnit report: %w", err)
	}
	return nil
}

// caseName names a step's testcase: its number (so the cases sort in order), tool and label.
func caseName(s Result) string {
	name := fmt.Sprintf("%02d %s", s.Index, s.Tool)
	if s.Name != "" {
		name += ": " + s.Name
	}
	return name
}

func seconds(d time.Duration) string { return fmt.Sprintf("%.3f", d.Seconds()) }

func oneLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return cut(s, maxMessage)
}

func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "… (cut; the JSON report has all of it)"
}
