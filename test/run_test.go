package test

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/internal/farmtest"
)

// junitFile is what a CI system reads of `corral run --junit`.
type junitFile struct {
	Tests    int `xml:"tests,attr"`
	Failures int `xml:"failures,attr"`
	Skipped  int `xml:"skipped,attr"`
	Suites   []struct {
		Name     string `xml:"name,attr"`
		Tests    int    `xml:"tests,attr"`
		Failures int    `xml:"failures,attr"`
		Skipped  int    `xml:"skipped,attr"`
		Cases    []struct {
			Name    string `xml:"name,attr"`
			Failure *struct {
				Message string `xml:"message,attr"`
			} `xml:"failure"`
			Skipped *struct{} `xml:"skipped"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

func readJUnit(t *testing.T, path string) junitFile {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var j junitFile
	if err := xml.Unmarshal(b, &j); err != nil {
		t.Fatalf("%s is not XML: %v\n%s", path, err, b)
	}
	if len(j.Suites) != 1 {
		t.Fatalf("%s: %d testsuites", path, len(j.Suites))
	}
	return j
}

// jsonReport is what a script reads of `corral run --json`.
type jsonReport struct {
	Name   string `json:"name"`
	Passed int    `json:"passed"`
	Failed int    `json:"failed"`
	Steps  []struct {
		Index  int    `json:"index"`
		Tool   string `json:"tool"`
		Status string `json:"status"`
		Error  string `json:"error"`
	} `json:"steps"`
}

// `corral run` runs the example steps file against a farm of simulated phones: every step
// passes, the table shows each step, and the JUnit file says so.
func TestRunExampleSmoke(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1})
	dir := t.TempDir()
	junit, report := filepath.Join(dir, "smoke.xml"), filepath.Join(dir, "smoke.json")
	// Flags after the file, as people type them.
	out, err := runCorral(t, "run", "../examples/steps/smoke.yaml", "--gateway", f.Gateway().MCPURL, "--serial", "n1-p1",
		"--junit", junit, "--json", report, "--log-level", "warn")
	if err != nil {
		t.Fatalf("corral run: %v\n%s", err, out)
	}
	contains(t, out, "run smoke: 6 steps on n1-p1", "1/6  passed", `tap_xy "open Notes"`, "6/6  passed", "PASS smoke: 6 passed in ")
	j := readJUnit(t, junit)
	if s := j.Suites[0]; j.Tests != 6 || j.Failures != 0 || s.Name != "smoke" || s.Tests != 6 || s.Failures != 0 || s.Skipped != 0 ||
		len(s.Cases) != 6 || s.Cases[1].Name != "02 tap_xy: open Notes" {
		t.Errorf("JUnit %+v", j)
	}
	b, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	var rep jsonReport
	if err := json.Unmarshal(b, &rep); err != nil || rep.Name != "smoke" || rep.Passed != 6 || len(rep.Steps) != 6 {
		t.Errorf("JSON report (%v): %s", err, b)
	}
	if log := f.Phone("n1-p1").InputLog(); !slices.ContainsFunc(log, func(l string) bool { return strings.Contains(l, "hello from corral run") }) {
		t.Errorf("the text never reached Notes: %v", log)
	}
}

// A failing step fails the run: the table and the reports say which step and why, and the steps
// after it are skipped; --keep-going runs them anyway.
func TestRunFailingStep(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1})
	dir := t.TempDir()
	steps := filepath.Join(dir, "broken.yaml")
	writeFile(t, steps, `
- method: home
- method: app_launch
  params: com.example.nope
  name: open an app the phone does not have
- method: tap_xy
  params: [0.5, 0.5]
- method: sleep_ms
  params: 10
`)
	junit, report := filepath.Join(dir, "broken.xml"), filepath.Join(dir, "broken.json")
	out, err := runCorral(t, "run", steps, "--gateway", f.Gateway().MCPURL, "--serial", "n1-p1", "--junit", junit, "--json", report)
	if code := exitCode(err); code != 1 {
		t.Fatalf("exit code %d (%v), want 1\n%s", code, err, out)
	}
	contains(t, out, "run broken: 4 steps on n1-p1", "2/4  FAILED", "not installed", "3/4  skipped", "4/4  skipped",
		"FAIL broken: 1 failed (step 2 app_launch), 1 passed, 2 skipped",
		"corral run: 1 of 4 steps failed; the first, step 2 (app_launch): ")
	j := readJUnit(t, junit)
	s := j.Suites[0]
	if s.Tests != 4 || s.Failures != 1 || s.Skipped != 2 || len(s.Cases) != 4 {
		t.Fatalf("JUnit %+v", s)
	}
	if c := s.Cases[1]; c.Failure == nil || !strings.Contains(c.Failure.Message, "not installed") {
		t.Errorf("case 2 %+v", c)
	}
	if s.Cases[2].Skipped == nil || s.Cases[3].Skipped == nil || s.Cases[0].Failure != nil {
		t.Errorf("cases %+v", s.Cases)
	}
	b, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	var rep jsonReport
	if err := json.Unmarshal(b, &rep); err != nil || rep.Failed != 1 || rep.Steps[1].Status != "failed" ||
		!strings.Contains(rep.Steps[1].Error, "com.example.nope") || rep.Steps[3].Status != "skipped" {
		t.Errorf("JSON report (%v): %s", err, b)
	}

	// --keep-going runs every step; the run still fails. --json - puts the report on stdout.
	stdout, err := runCorralStdout(t, "run", "--keep-going", "--json", "-", steps, "--gateway", f.Gateway().MCPURL, "--serial", "n1-p1")
	if exitCode(err) != 1 {
		t.Fatalf("keep-going: %v\n%s", err, stdout)
	}
	rep = jsonReport{}
	if err := json.Unmarshal(stdout, &rep); err != nil {
		t.Fatalf("stdout is not the JSON report: %v\n%s", err, stdout)
	}
	var got []string
	for _, st := range rep.Steps {
		got = append(got, st.Status)
	}
	if !slices.Equal(got, []string{"passed", "failed", "passed", "passed"}) {
		t.Errorf("keep-going statuses %v", got)
	}
}

// Steps the gateway cannot run are errors before anything runs: the run says which steps and
// why, and touches no device.
func TestRunRefusesBadSteps(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1})
	dir := t.TempDir()
	steps := filepath.Join(dir, "bad.json")
	writeFile(t, steps, `{"name": "bad", "steps": [
		{"method": "home"},
		{"method": "tap_xy", "params": [2, 0.5]},
		{"method": "no_such_tool", "params": 1}
	]}`)
	before := len(f.Phone("n1-p1").InputLog())
	junit := filepath.Join(dir, "bad.xml")
	out, err := runCorral(t, "run", steps, "--gateway", f.Gateway().MCPURL, "--serial", "n1-p1", "--junit", junit)
	if exitCode(err) != 1 {
		t.Fatalf("exit code %v\n%s", err, out)
	}
	contains(t, out, "nothing ran; fix these steps:", "step 2 (line 3, tap_xy): x must be between 0 and 1, got 2",
		`step 3 (line 4, no_such_tool): the gateway has no tool "no_such_tool"`)
	if _, err := os.Stat(junit); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a JUnit file for a run that did not run: %v", err)
	}
	if log := f.Phone("n1-p1").InputLog(); len(log) != before {
		t.Errorf("a step ran: %v", log[before:])
	}

	// Offline, --check-config converts the steps without a gateway.
	out, err = runCorral(t, "run", "--check-config", "--serial", "n1-p1", "../examples/steps/smoke.yaml")
	if err != nil {
		t.Fatalf("check-config: %v\n%s", err, out)
	}
	contains(t, out, "configuration ok")
	// Without a device for its steps it would not run: check-config says so.
	out, err = runCorral(t, "run", "--check-config", "../examples/steps/smoke.yaml")
	if exitCode(err) != 1 || !strings.Contains(out, "no device") {
		t.Errorf("check-config of steps without a device: %v\n%s", err, out)
	}
	writeFile(t, steps, "- {method: swipe, params: [1, 2]}\n")
	out, err = runCorral(t, "run", "--check-config", steps)
	if exitCode(err) != 1 {
		t.Fatalf("check-config of a bad file: %v\n%s", err, out)
	}
	contains(t, out, "step 1 (line 1, swipe): params: swipe takes a direction")
	if out, err := runCorral(t, "run"); exitCode(err) != 2 || !strings.Contains(out, "usage: corral run FILE") {
		t.Errorf("no file: %v\n%s", err, out)
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// exitCode is a command's exit code: 0 for no error, -1 when it did not run to an exit.
func exitCode(err error) int {
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return ee.ExitCode()
	}
	return -1
}

// runCorralStdout runs corral and returns its stdout alone (stderr goes to the test log).
func runCorralStdout(t *testing.T, args ...string) ([]byte, error) {
	t.Helper()
	bin := corral(t) // before the command's minute (runCorral)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if stderr.Len() > 0 {
		t.Logf("stderr:\n%s", stderr.String())
	}
	return out, err
}
