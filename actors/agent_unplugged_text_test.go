package actors_test

import (
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/nodes/agent/model"
	"github.com/corral-farm/corral/nodes/agent/model/modelsim"
)

// QA: an agent task whose phone went away read "...disconnected during the task (...);
// device X [task t_…]": the part after the cause named the device and said nothing. It
// says how far the agent got, as after an abort.
func TestAgentTaskOfAnUnpluggedPhoneSaysHowFarItGot(t *testing.T) {
	if _, err := exec.LookPath("adb"); err != nil {
		t.Skip("needs adb (make test installs it)")
	}
	srv := modelsim.New(
		modelsim.Call(modelsim.ToolCall{Name: "plan", Arguments: `{"steps":[{"title":"Go home, then wait"}]}`}),
		modelsim.Call(modelsim.ToolCall{Name: "home", Arguments: `{}`}),
		modelsim.Turn{Delay: time.Minute, Text: "too late"},
	)
	t.Cleanup(srv.Close)
	m, err := model.NewClient(model.Config{BaseURL: srv.BaseURL(), Model: "scripted"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Model: m})
	adb, devs := f.StartAndroid("n1", 1)
	serial := devs[0].Serial()
	farmtest.Eventually(t, 15*time.Second, func() bool { e, _ := f.Gateway().Client.Device(serial); return e.State == "online" }, "%s online", serial)
	c := f.Client("agent")

	answer := farmtest.Go(t, c, "run_agent_task", map[string]any{"serial": serial, "goal": "wait"})
	farmtest.Eventually(t, 30*time.Second, func() bool { return len(srv.Requests()) >= 3 }, "the agent pressed HOME and waits for the model")
	adb.Stop()

	var res farmtest.Answer
	select {
	case res = <-answer:
	case <-time.After(30 * time.Second):
		t.Fatal("the agent task of the unplugged phone was never answered")
	}
	text := farmtest.Text(res.Get(t))
	first, _, _ := strings.Cut(text, "\n")
	if bare := regexp.MustCompile(`; device ` + regexp.QuoteMeta(serial) + ` \[task `); bare.MatchString(first) {
		t.Errorf("the failure ends in a bare device name: %s", first)
	}
	if want := "; device " + serial + ": the agent stopped after 0 of 1 plan steps"; !strings.Contains(first, want) {
		t.Errorf("the failure does not say how far the agent got (%q): %s", want, first)
	}
}
