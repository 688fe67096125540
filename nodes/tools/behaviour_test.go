package tools

import (
	"context"
	"encoding/json"
	"maps"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/nodes/device"
)

// runsOtherTools are the tools that are not read-only yet take no behaviour parameters: their
// actions are other tools' calls.
var runsOtherTools = []string{"sequence", "run_agent_task", "ai_action"}

// actionArgs are arguments every action tool takes, one example each. A new action tool
// needs a line here.
var actionArgs = map[string]string{
	"tap_xy": `{"x":0.5,"y":0.5}`, "tap_abs_xy": `{"x":10,"y":10}`, "double_tap_xy": `{"x":0.5,"y":0.5}`,
	"swipe": `{"direction":"up"}`, "drag": `{"from_x":0.1,"from_y":0.1,"to_x":0.5,"to_y":0.5}`, "input": `{"text":"hi"}`,
	"press_button": `{"button":"ENTER"}`, "home": `{}`, "back": `{}`, "app_launch": `{"packageName":"com.example.app"}`,
	"app_terminate": `{"packageName":"com.example.app"}`, "swipe_direction": `{"direction":"left"}`,
	"swipe_coordinate": `{"from_x":0.5,"from_y":0.8,"to_x":0.5,"to_y":0.2}`, "app_install": `{"appUrl":"/nowhere/app.apk"}`,
	"app_uninstall": `{"packageName":"com.example.app"}`, "app_clear": `{"packageName":"com.example.app"}`,
	"set_ime": `{"ime":"com.android.adbkeyboard/.AdbIME"}`, "close_popups": `{}`, "tap_ocr": `{"text":"OK"}`,
	"tap_cv": `{"imagePath":"/nowhere/button.png"}`, "swipe_to_tap_app": `{"appName":"Notes","max_retry_times":1}`,
	"swipe_to_tap_text": `{"text":"OK","max_retry_times":1}`, "swipe_to_tap_texts": `{"texts":["OK"],"max_retry_times":1}`,
	"tap": `{"bbox":[0.1,0.1,0.2,0.2]}`, "double_tap": `{"bbox":[0.1,0.1,0.2,0.2]}`, "long_press": `{"bbox":[0.1,0.1,0.2,0.2]}`,
	"home_screen": `{}`, "go_back": `{}`, "force_quit": `{}`, "unlock_phone": `{}`, "send_to_clipboard": `{"text":"hi"}`,
	"arm_calibrate": `{}`, "arm_recover": `{}`, "tap_by_selector": `{"selector":"#ok"}`, "hover_by_selector": `{"selector":"#ok"}`,
	"secondary_click": `{"x":0.5,"y":0.5}`, "secondary_click_by_selector": `{"selector":"#ok"}`, "web_close_tab": `{"tabIndex":0}`,
	"web_login_none_ui": `{"packageName":"https://shop.example/api/login","password":"pw"}`,
}

// The rule: every tool that is not read-only takes pre_mark_operation and anti_risk as the
// seed types them, but the tools whose actions are other tools' calls; no other tool does.
func TestActionToolsTakeBehaviour(t *testing.T) {
	props, _ := InputSchema(reflect.TypeFor[ActionArgs]())
	assert.ElementsMatch(t, behaviourArgs, slices.Collect(maps.Keys(props)), "behaviourArgs names Behaviour's arguments")
	for _, tool := range All() {
		props, _ := tool.InputSchema()
		want := !tool.Hints.ReadOnly && !slices.Contains(runsOtherTools, tool.Name)
		for _, name := range behaviourArgs {
			p, ok := props[name]
			if ok != want {
				t.Errorf("%s takes %s: %v, want %v", tool.Name, name, ok, want)
			}
			if ok && p["type"] != "boolean" {
				t.Errorf("%s's %s is %v, not a boolean", tool.Name, name, p["type"])
			}
		}
		if _, listed := actionArgs[tool.Name]; listed != want {
			t.Errorf("%s: an action tool %v, listed in actionArgs %v", tool.Name, want, listed)
		}
	}
}

// Every action tool accepts anti_risk and pre_mark_operation: given them, it ends as it ends
// without them (a fake phone lacks some tools' abilities, a worker, a file), and when it
// succeeds its result says what anti_risk did.
func TestBehaviourAcceptedByEveryActionTool(t *testing.T) {
	succeeded := 0
	for name, args := range actionArgs {
		plain, plainErr := runOp(t, name, newAbled(), args)
		withArgs := strings.Replace(args, "{", `{"anti_risk":true,"pre_mark_operation":true,`, 1)
		withArgs = strings.Replace(withArgs, ",}", "}", 1)
		out, err := runOp(t, name, newAbled(), withArgs)
		if (err == nil) != (plainErr == nil) || (err != nil && err.Error() != plainErr.Error()) {
			t.Errorf("%s: %v with the behaviour parameters, %v without", name, err, plainErr)
			continue
		}
		if err != nil {
			continue
		}
		succeeded++
		var res BehaviourResult
		require.NoError(t, json.Unmarshal(mustJSON(t, out.Data), &res), name)
		assert.Regexp(t, `^(applied to \d+ touches|not applicable to `+name+`: no touch was made)$`, res.AntiRisk, name)
		assert.NotContains(t, string(mustJSON(t, plain.Data)), "antiRisk", "%s without anti_risk", name)
	}
	assert.GreaterOrEqual(t, succeeded, 25, "most action tools run on the fake phone")
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}

// anti_risk is applied where touches are a finger's, reported not applicable elsewhere, and
// never changes a web page's click.
func TestAntiRiskApplicable(t *testing.T) {
	web := newAbled()
	web.info.Platform = device.PlatformWeb
	var got device.Point
	web.TapFn = func(_ context.Context, p device.Point, _ time.Duration) error { got = p; return nil }
	res := mustRun(t, "tap_xy", web, `{"x":0.5,"y":0.5,"anti_risk":true}`)
	assert.Equal(t, "not applicable on web", res["antiRisk"])
	assert.Equal(t, device.Point{X: 540, Y: 1200}, got, "a web click is not moved")

	res = mustRun(t, "input", newAbled(), `{"text":"hi","anti_risk":true}`)
	assert.Equal(t, "not applicable to input: no touch was made", res["antiRisk"])
	assert.Equal(t, "typed 2 characters", res["message"], "the tool's own result is kept")

	res = mustRun(t, "swipe", newAbled(), `{"direction":"up","anti_risk":true}`)
	assert.Equal(t, "applied to 1 touches", res["antiRisk"])
	assert.Contains(t, res["message"], "swiped up")
	iphone := newAbled()
	iphone.info.Platform = device.PlatformIOS
	assert.Equal(t, "applied to 1 touches", mustRun(t, "double_tap", iphone, `{"bbox":[0.1,0.1,0.2,0.2],"anti_risk":true}`)["antiRisk"])
}

// Without behaviour parameters a tool runs exactly as before: no screenshot, no screen size
// asked again, its result its own type.
func TestNoBehaviourNoCost(t *testing.T) {
	d := newAbled()
	saver := &memSaver{}
	out, err := newEnv(OpsConfig{Screenshots: saver}).Ops["tap_xy"].Run(context.Background(),
		&Task{ID: "t_1", Driver: d, Args: json.RawMessage(`{"x":0.5,"y":0.5,"anti_risk":false}`)})
	require.NoError(t, err)
	assert.IsType(t, MessageResult{}, out.Data)
	assert.Equal(t, []string{"ScreenSize", "Tap"}, d.Calls())
	assert.Empty(t, saver.saved)
}

// memSaver keeps screenshots in memory, as a node's store would, and counts marks.
type memSaver struct {
	mu      sync.Mutex
	saved   map[string][]byte
	marked  int
	failed  []error
	refuse  error
	ordered []string
}

func (s *memSaver) SaveScreenshot(_ context.Context, task string, jpeg []byte) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.refuse != nil {
		return "", s.refuse
	}
	if s.saved == nil {
		s.saved = map[string][]byte{}
	}
	name := "tasks/" + task + "/" + string(rune('a'+len(s.saved))) + ".jpg"
	s.saved[name] = jpeg
	s.ordered = append(s.ordered, name)
	return name, nil
}

func (s *memSaver) SaveMarked(ctx context.Context, task string, jpeg []byte) (string, error) {
	name, err := s.SaveScreenshot(ctx, task, jpeg)
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		s.failed = append(s.failed, err)
	} else {
		s.marked++
	}
	return name, err
}

func (s *memSaver) MarkFailed(_ string, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failed = append(s.failed, err)
}
