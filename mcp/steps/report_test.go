package steps

import (
	"bytes"
	"encoding/xml"
	"reflect"
	"strings"
	"testing"
	"time"
)

// sampleReport is a run with every kind of step: passed, failed, failed but ignored, skipped.
func sampleReport() *Report {
	start := time.Date(2026, 3, 1, 12, 0, 0, 123456789, time.UTC)
	r := &Report{Name: "smoke", Serial: "n1-p1", Platform: "android", Started: start, Duration: 1234567891 * time.Nanosecond}
	r.add(Result{Index: 1, Method: "home", Tool: "home", Arguments: map[string]any{"serial": "n1-p1"}, Status: Passed,
		Started: start, Duration: 12345678 * time.Nanosecond, Text: `{"message":"pressed HOME"}`})
	r.add(Result{Index: 2, Name: "maybe", Method: "app_launch", Tool: "app_launch", Status: Failed, Ignored: true,
		Started: start.Add(time.Second), Duration: 25 * time.Millisecond, Error: "not installed"})
	r.add(Result{Index: 3, Name: "open <Notes> & type", Method: "tap_xy", Tool: "tap_xy",
		Arguments: map[string]any{"x": 0.5, "y": 2.0}, Status: Failed, Started: start.Add(2 * time.Second),
		Duration: 3 * time.Millisecond, Error: "x must be \"between\" 0 and 1\nsecond line"})
	r.add(Result{Index: 4, Method: "sleep_ms", Tool: "sleep_ms", Status: Skipped, Reason: "step 3 (tap_xy) failed"})
	return r
}

// What the test reads of JUnit XML: what CI systems read.
type (
	xmlSuites struct {
		XMLName  xml.Name   `xml:"testsuites"`
		Tests    int        `xml:"tests,attr"`
		Failures int        `xml:"failures,attr"`
		Skipped  int        `xml:"skipped,attr"`
		Suites   []xmlSuite `xml:"testsuite"`
	}
	xmlSuite struct {
		Name       string `xml:"name,attr"`
		Tests      int    `xml:"tests,attr"`
		Failures   int    `xml:"failures,attr"`
		Errors     int    `xml:"errors,attr"`
		Skipped    int    `xml:"skipped,attr"`
		Time       string `xml:"time,attr"`
		Timestamp  string `xml:"timestamp,attr"`
		Properties []struct {
			Name  string `xml:"name,attr"`
			Value string `xml:"value,attr"`
		} `xml:"properties>property"`
		Cases []struct {
			Name      string `xml:"name,attr"`
			Classname string `xml:"classname,attr"`
			Time      string `xml:"time,attr"`
			Failure   *struct {
				Message string `xml:"message,attr"`
				Text    string `xml:",chardata"`
			} `xml:"failure"`
			Skipped *struct {
				Message string `xml:"message,attr"`
			} `xml:"skipped"`
			SystemOut string `xml:"system-out"`
			SystemErr string `xml:"system-err"`
		} `xml:"testcase"`
	}
)

func TestJUnit(t *testing.T) {
	var b bytes.Buffer
	if err := sampleReport().WriteJUnit(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(b.String(), xml.Header) {
		t.Errorf("no XML header:\n%s", b.String())
	}
	var doc xmlSuites
	if err := xml.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatalf("not XML: %v\n%s", err, b.String())
	}
	if doc.Tests != 4 || doc.Failures != 1 || doc.Skipped != 1 || len(doc.Suites) != 1 {
		t.Fatalf("testsuites %+v", doc)
	}
	s := doc.Suites[0]
	if s.Name != "smoke" || s.Tests != 4 || s.Failures != 1 || s.Errors != 0 || s.Skipped != 1 || s.Time != "1.235" ||
		s.Timestamp != "2026-03-01T12:00:00Z" || len(s.Properties) != 2 || s.Properties[0].Value != "n1-p1" {
		t.Errorf("testsuite %+v", s)
	}
	if len(s.Cases) != 4 {
		t.Fatalf("%d testcases", len(s.Cases))
	}
	c := s.Cases
	if c[0].Name != "01 home" || c[0].Classname != "smoke" || c[0].Time != "0.012" || c[0].Failure != nil || c[0].Skipped != nil ||
		c[0].SystemOut != `{"message":"pressed HOME"}` {
		t.Errorf("case 1 %+v", c[0])
	}
	if c[1].Failure != nil || !strings.Contains(c[1].SystemErr, "error ignored") {
		t.Errorf("an ignored failure passes: %+v", c[1])
	}
	if c[2].Name != "03 tap_xy: open <Notes> & type" || c[2].Failure == nil || c[2].Failure.Message != `x must be "between" 0 and 1` ||
		c[2].Failure.Text != "x must be \"between\" 0 and 1\nsecond line" {
		t.Errorf("case 3 %+v %+v", c[2], c[2].Failure)
	}
	if c[3].Skipped == nil || c[3].Skipped.Message != "step 3 (tap_xy) failed" || c[3].Failure != nil {
		t.Errorf("case 4 %+v", c[3])
	}
}

func TestJSONRoundTrip(t *testing.T) {
	want := sampleReport()
	var b bytes.Buffer
	if err := want.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	for _, field := range []string{`"durationMs": 1234.567891`, `"durationMs": 12.345678`, `"status": "skipped"`, `"ignored": true`, `"tests": 4`} {
		if !strings.Contains(b.String(), field) {
			t.Errorf("the JSON has no %s:\n%s", field, b.String())
		}
	}
	got, err := ReadJSON(&b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("round trip\n got %+v\nwant %+v", got, want)
	}
	if _, err := ReadJSON(strings.NewReader("{")); err == nil {
		t.Error("a broken report read")
	}
}

func TestText(t *testing.T) {
	var b bytes.Buffer
	if err := sampleReport().WriteText(&b); err != nil {
		t.Fatal(err)
	}
	want := `run smoke: 4 steps on n1-p1
  1/4  passed      12ms  home
  2/4  failed      25ms  app_launch "maybe" (ignore_error)
       error: not installed
  3/4  FAILED       3ms  tap_xy "open <Notes> & type"
       error: x must be "between" 0 and 1
              second line
  4/4  skipped        -  sleep_ms
FAIL smoke: 1 failed (step 3 tap_xy), 1 passed, 1 failed but ignored, 1 skipped in 1.235s
`
	if b.String() != want {
		t.Errorf("text report\n got:\n%s\nwant:\n%s", b.String(), want)
	}
	ok := &Report{Name: "ok", Duration: time.Second}
	ok.add(Result{Index: 1, Tool: "home", Status: Passed, Duration: time.Millisecond})
	b.Reset()
	if err := ok.WriteText(&b); err != nil || !strings.HasSuffix(b.String(), "PASS ok: 1 passed in 1s\n") {
		t.Errorf("%v\n%s", err, b.String())
	}
}
