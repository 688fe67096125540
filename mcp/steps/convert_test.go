package steps

import (
	"maps"
	"reflect"
	"slices"
	"testing"
)

// convertCase is one action and the arguments it must become.
type convertCase struct {
	action MobileAction
	want   map[string]any
}

// convertCases holds, for every tool of the catalog, actions in HttpRunner's form and the
// arguments they become. TestConvertEveryTool fails for a tool the gateway lists without an
// entry here: a new tool adds its cases (and, if it takes params, a short form in formOf).
func convertCases() map[string][]convertCase {
	type m = map[string]any
	a := func(method string, params any, opts m) MobileAction {
		return MobileAction{Method: method, Params: params, Options: opts}
	}
	bbox := []any{0.1, 0.2, 0.3, 0.4}
	return map[string][]convertCase{
		// Devices, leases and tasks.
		"list_available_devices": {{a("list_available_devices", nil, nil), m{}}},
		"get_device_status":      {{a("get_device_status", "n1-p1", nil), m{"serial": "n1-p1"}}},
		"select_device": {
			{a("select_device", "n1-p1", nil), m{"serial": "n1-p1"}},
			{a("select_device", m{"serial": "n1-p1", "platform": "android"}, nil), m{"serial": "n1-p1", "platform": "android"}},
		},
		"acquire_device": {
			{a("acquire_device", nil, nil), m{}},
			{a("acquire_device", "n1-p2", m{"ttl_seconds": 60}), m{"serial": "n1-p2", "ttl_seconds": 60}},
			{a("acquire_device", m{"platform": "android", "tags": []string{"lab"}, "wait_seconds": 5}, nil),
				m{"platform": "android", "tags": []any{"lab"}, "wait_seconds": 5}},
		},
		"release_device": {{a("release_device", "l_handle1", nil), m{"lease": "l_handle1"}}},
		"list_leases":    {{a("list_leases", nil, nil), m{}}},
		"abort_task": {
			{a("abort_task", "t_abc123", nil), m{"task_id": "t_abc123"}},
			{a("abort_task", nil, m{"all": true}), m{"all": true}},
		},
		"get_task_result": {{a("get_task_result", "t_abc123", nil), m{"task_id": "t_abc123"}}},
		"emergency_stop":  {{a("emergency_stop", "arm-twin-01", nil), m{"serial": "arm-twin-01"}}},
		"get_latest_task": {
			{a("get_latest_task", nil, nil), m{}},
			{a("get_latest_task", m{"includeSteps": false}, nil), m{"includeSteps": false}},
		},
		// Screen.
		"get_screen_size": {{a("get_screen_size", nil, nil), m{}}},
		"screenshot":      {{a("screenshot", nil, m{"timeout": 5}), m{"timeout_ms": 5000}}},
		"take_screenshot": {{a("take_screenshot", nil, nil), m{}}},
		"get_source": {
			{a("get_source", nil, nil), m{}},
			{a("get_source", "com.corral.notes", nil), m{"packageName": "com.corral.notes"}},
		},
		// Touch.
		"tap_xy": {
			{a("tap_xy", []float64{0.5, 0.3}, m{"duration": 0.2, "anti_risk": true}), m{"x": 0.5, "y": 0.3, "duration": 0.2, "anti_risk": true}},
			{a("tap_xy", []any{0, 1}, nil), m{"x": 0, "y": 1}}, // zero is a coordinate
		},
		"tap_abs_xy":    {{a("tap_abs_xy", []int{540, 1200}, nil), m{"x": 540, "y": 1200}}},
		"double_tap_xy": {{a("double_tap_xy", []float64{0.5, 0.5}, nil), m{"x": 0.5, "y": 0.5}}},
		"swipe": {
			{a("swipe", "up", m{"duration": 0.5, "pressDuration": 0.1}), m{"direction": "up", "duration": 0.5, "press_duration": 0.1}},
			{a("swipe", []float64{0.5, 0.8, 0.5, 0.2}, nil), m{"from_x": 0.5, "from_y": 0.8, "to_x": 0.5, "to_y": 0.2}},
			{a("swipe", m{"bbox": bbox, "direction": "up", "size": "l", "speed": "fast"}, nil),
				m{"bbox": bbox, "direction": "up", "size": "l", "speed": "fast"}},
		},
		"drag": { // options.duration in seconds, as HttpRunner converts it; params' in the tool's ms
			{a("drag", []float64{0.1, 0.5, 0.9, 0.5}, m{"duration": 0.8}), m{"from_x": 0.1, "from_y": 0.5, "to_x": 0.9, "to_y": 0.5, "duration": 800}},
			{a("drag", m{"from_x": 0.1, "from_y": 0.5, "to_x": 0.9, "to_y": 0.5, "duration": 800}, nil), m{"from_x": 0.1, "from_y": 0.5, "to_x": 0.9, "to_y": 0.5, "duration": 800}},
		},
		// Keys and text.
		"input":        {{a("input", "hello", nil), m{"text": "hello"}}},
		"press_button": {{a("press_button", "BACK", nil), m{"button": "BACK"}}},
		"home":         {{a("home", nil, nil), m{}}},
		"back":         {{a("back", nil, m{"timeout_ms": 2000, "wait_seconds": 1}), m{"timeout_ms": 2000, "wait_seconds": 1}}},
		// Apps.
		"list_packages":      {{a("list_packages", nil, nil), m{}}},
		"get_foreground_app": {{a("get_foreground_app", nil, nil), m{}}},
		"app_launch":         {{a("app_launch", "com.corral.notes", nil), m{"packageName": "com.corral.notes"}}},
		"app_terminate":      {{a("app_terminate", "com.corral.notes", nil), m{"packageName": "com.corral.notes"}}},
		// Time.
		"sleep": {
			{a("sleep", 1.5, nil), m{"seconds": 1.5}},
			{a("sleep", "2", nil), m{"seconds": 2}}, // HttpRunner takes seconds as a string too
		},
		"sleep_ms":     {{a("sleep_ms", int64(250), nil), m{"milliseconds": 250}}},
		"sleep_random": {{a("sleep_random", []float64{1, 2}, nil), m{"params": []any{1, 2}}}, {a("sleep_random", 3, nil), m{"params": []any{3}}}},
		// HttpRunner seed, Android issue.
		"swipe_direction":  {{a("swipe_direction", "left", m{"duration": 0.3}), m{"direction": "left", "duration": 0.3}}},
		"swipe_coordinate": {{a("swipe_coordinate", []float64{0.2, 0.5, 0.8, 0.5}, nil), m{"from_x": 0.2, "from_y": 0.5, "to_x": 0.8, "to_y": 0.5}}},
		"app_install":      {{a("app_install", "https://example.com/app.apk", nil), m{"appUrl": "https://example.com/app.apk"}}},
		"app_uninstall":    {{a("app_uninstall", "com.example.app", nil), m{"packageName": "com.example.app"}}},
		"app_clear":        {{a("app_clear", "com.corral.notes", nil), m{"packageName": "com.corral.notes"}}},
		"set_ime":          {{a("set_ime", "com.android.adbkeyboard/.AdbIME", nil), m{"ime": "com.android.adbkeyboard/.AdbIME"}}},
		// PhysiClaw seed.
		"peek":              {{a("peek", nil, nil), m{}}},
		"tap":               {{a("tap", bbox, nil), m{"bbox": bbox}}},
		"double_tap":        {{a("double_tap", bbox, nil), m{"bbox": bbox}}},
		"long_press":        {{a("long_press", bbox, nil), m{"bbox": bbox}}},
		"home_screen":       {{a("home_screen", nil, nil), m{}}},
		"go_back":           {{a("go_back", nil, nil), m{}}},
		"force_quit":        {{a("force_quit", nil, nil), m{}}},
		"arm_calibrate":     {{a("arm_calibrate", nil, nil), m{}}},
		"arm_recover":       {{a("arm_recover", nil, nil), m{}}},
		"send_to_clipboard": {{a("send_to_clipboard", "hello", nil), m{"text": "hello"}}},
		// Agent tasks.
		"run_agent_task": {{a("run_agent_task", "open Settings", m{"timeoutMs": 60000}), m{"goal": "open Settings", "timeoutMs": 60000}}},
		"ai_action":      {{a("ai_action", "tap the search box", nil), m{"prompt": "tap the search box"}}},
		"ai_query":       {{a("ai_query", "what is the price?", nil), m{"prompt": "what is the price?"}}},
		"finished":       {{a("finished", "all done", nil), m{"content": "all done"}}},
		"unlock_phone":   {{a("unlock_phone", nil, nil), m{}}},
		// Vision (issue 10).
		"tap_ocr": {
			{a("tap_ocr", "Sign in", m{"ignore_NotFoundError": true, "index": -1, "offset": []any{0, -25}}),
				m{"text": "Sign in", "ignore_NotFoundError": true, "index": -1, "tap_offset": []any{0, -25}}},
			{a("tap_ocr", "^Item \\d+$", m{"regex": true, "max_retry_times": 2}), m{"text": "^Item \\d+$", "regex": true, "max_retry_times": 2}},
		},
		"tap_cv":            {{a("tap_cv", "/srv/icons/cart.png", m{"threshold": 0.9}), m{"imagePath": "/srv/icons/cart.png", "threshold": 0.9}}},
		"swipe_to_tap_app":  {{a("swipe_to_tap_app", "Settings", m{"max_retry_times": 3}), m{"appName": "Settings", "max_retry_times": 3}}},
		"swipe_to_tap_text": {{a("swipe_to_tap_text", "Item 42", m{"direction": "up"}), m{"text": "Item 42", "direction": "up"}}},
		"swipe_to_tap_texts": {
			{a("swipe_to_tap_texts", []any{"Allow", "OK"}, nil), m{"texts": []any{"Allow", "OK"}}},
			{a("swipe_to_tap_texts", []string{"Item 9"}, m{"max_retry_times": 5}), m{"texts": []any{"Item 9"}, "max_retry_times": 5}},
		},
		// Web (issue 13).
		"tap_by_selector": {
			{a("tap_by_selector", "#submit", nil), m{"selector": "#submit"}},
			{a("tap_by_selector", "//a[text()='Next']", m{"ignore_NotFoundError": true}), m{"selector": "//a[text()='Next']", "ignore_NotFoundError": true}},
		},
		"hover_by_selector":           {{a("hover_by_selector", ".menu", nil), m{"selector": ".menu"}}},
		"secondary_click_by_selector": {{a("secondary_click_by_selector", "#row-3", nil), m{"selector": "#row-3"}}},
		"secondary_click":             {{a("secondary_click", []any{0.5, 0.25}, nil), m{"x": 0.5, "y": 0.25}}},
		"web_close_tab":               {{a("web_close_tab", 1, nil), m{"tabIndex": 1}}},
		"web_login_none_ui": {{a("web_login_none_ui", nil, m{"packageName": "https://shop.example/api/login", "phoneNumber": "13800000000", "captcha": "1234"}),
			m{"packageName": "https://shop.example/api/login", "phoneNumber": "13800000000", "captcha": "1234"}}},
		// Popups.
		"close_popups": {{a("close_popups", nil, m{"timeout": 10}), m{"timeout_ms": 10000}}},
		"sequence": {{
			a("sequence", []any{
				m{"method": "tap_xy", "params": []any{0.5, 0.5}, "options": m{"duration": 0.1}},
				m{"method": "input", "params": "hi"},
				m{"tool_name": "tap", "arg": bbox},
				m{"tool_name": "swipe", "args": m{"direction": "up"}},
			}, nil),
			m{"steps": []any{
				m{"tool_name": "tap_xy", "args": m{"x": 0.5, "y": 0.5, "duration": 0.1}},
				m{"tool_name": "input", "args": m{"text": "hi"}},
				m{"tool_name": "tap", "arg": bbox},
				m{"tool_name": "swipe", "args": m{"direction": "up"}},
			}},
		}},
	}
}

// Every tool a real gateway lists converts from HttpRunner's form, and the arguments it becomes
// fit the tool's input schema.
func TestConvertEveryTool(t *testing.T) {
	_, _, cat := startFarm(t)
	cases := convertCases()
	for _, tool := range cat.Names() {
		if len(cases[tool]) == 0 {
			t.Errorf("the gateway lists %s, but convertCases has no case for it: add one (and a short form of its params to formOf)", tool)
		}
		if formOf(tool).usage == noShortForm {
			t.Errorf("formOf has no case for %s: say how its params are written (or that it takes none)", tool)
		}
	}
	for _, tool := range slices.Sorted(maps.Keys(cases)) {
		if !cat.Has(tool) { // a tool on its way in or out: nothing to check it against
			t.Logf("convertCases has %s, which the gateway does not list", tool)
			continue
		}
		for i, c := range cases[tool] {
			req, err := Convert(c.action)
			if err != nil {
				t.Errorf("%s case %d: %v", tool, i, err)
				continue
			}
			if req.Params.Name != tool {
				t.Errorf("%s case %d: tool %q", tool, i, req.Params.Name)
			}
			got := req.GetArguments()
			if want := jsonOf(t, c.want); !reflect.DeepEqual(got, want) {
				t.Errorf("%s case %d: arguments\n got %v\nwant %v", tool, i, got, want)
			}
			if err := cat.Check(tool, got); err != nil {
				t.Errorf("%s case %d: %v does not fit the input schema: %v", tool, i, got, err)
			}
		}
	}
}

func TestConvertErrors(t *testing.T) {
	type m = map[string]any
	for _, c := range []struct {
		action MobileAction
		want   string
	}{
		{MobileAction{Method: " "}, "method is empty: name the tool, e.g. tap_xy"},
		{MobileAction{Method: "tap_xy", Params: "up"},
			`params: tap_xy takes [x, y] (relative 0-1), or an object of its arguments; got the string "up"`},
		{MobileAction{Method: "tap_xy", Params: []any{0.5}},
			`params: tap_xy takes [x, y] (relative 0-1), or an object of its arguments; got the list [0.5]`},
		{MobileAction{Method: "home", Params: 3}, `params: home takes no params; got the number 3`},
		{MobileAction{Method: "swipe", Params: []any{1, 2}},
			`params: swipe takes a direction ("up", "down", "left" or "right") or [from_x, from_y, to_x, to_y] (relative 0-1), or an object of its arguments; got the list [1,2]`},
		{MobileAction{Method: "input", Params: 1234},
			`params: input takes the text (a string: quote digits, e.g. "1234"), or an object of its arguments; got the number 1234`},
		{MobileAction{Method: "sleep_ms", Params: 1.5},
			`params: sleep_ms takes milliseconds (a whole number), or an object of its arguments; got the number 1.5`},
		{MobileAction{Method: "sleep", Params: "soon"},
			`params: sleep takes seconds (a number), or an object of its arguments; got the string "soon"`},
		{MobileAction{Method: "tap", Params: []any{0.1, 0.2}},
			`params: tap takes a bbox [left, top, right, bottom] (relative 0-1), or an object of its arguments; got the list [0.1,0.2]`},
		{MobileAction{Method: "some_new_tool", Params: "x"},
			`params: some_new_tool takes ` + noShortForm + `; got the string "x"`},
		{MobileAction{Method: "tap_xy", Params: m{"x": 0.1, "y": 0.2}, Options: m{"x": 0.3}},
			`options.x: conflicts with x 0.1 given by params; keep one`},
		{MobileAction{Method: "tap_xy", Params: []any{0.1, 0.2}, Options: m{"timeout": "soon"}},
			`options.timeout: must be a positive number of seconds, got the string "soon"`},
		{MobileAction{Method: "drag", Params: []any{0.1, 0.2, 0.3, 0.4}, Options: m{"duration": "slow"}},
			`options.duration: drag's option is a positive number of seconds (HttpRunner's), got the string "slow"`},
		{MobileAction{Method: "drag", Params: []any{0.1, 0.2, 0.3, 0.4}, Options: m{"duration": 120}},
			`options.duration: drag's option is in seconds (HttpRunner's), from 0.01 to 60; got 120`},
		{MobileAction{Method: "drag", Params: []any{0.1, 0.2, 0.3, 0.4}, Options: m{"duration": 0.001}},
			`options.duration: drag's option is in seconds (HttpRunner's), from 0.01 to 60; got 0.001`},
		{MobileAction{Method: "sequence", Params: []any{m{"method": "tap_xy", "params": "up"}}},
			`params: sequence step 1 (tap_xy): params: tap_xy takes [x, y] (relative 0-1), or an object of its arguments; got the string "up"`},
		{MobileAction{Method: "sequence", Params: []any{m{"method": "home", "options": m{"ignore_error": true}}}},
			`params: sequence step 1 (home): options.ignore_error: steers a whole step; it has no place inside a sequence`},
		{MobileAction{Method: "sequence", Params: []any{"home"}},
			`params: sequence step 1: is an action {method, params, options} or {tool_name, args}; got the string "home"`},
		{MobileAction{Method: "sequence", Params: []any{m{"params": 1}}},
			`params: sequence step 1: method is missing (or give tool_name and args)`},
		{MobileAction{Method: "sequence", Params: []any{m{"method": "home", "name": "x"}}},
			`params: sequence step 1 (home): unknown field "name"; an action has method, params and options`},
	} {
		_, err := Convert(c.action)
		if err == nil || err.Error() != c.want {
			t.Errorf("Convert(%+v)\n got %v\nwant %s", c.action, err, c.want)
		}
	}
}

// Runner options never become arguments.
func TestConvertDropsRunnerOptions(t *testing.T) {
	req, err := Convert(MobileAction{Method: "home", Options: map[string]any{"ignore_error": true, "identifier": "go home"}})
	if err != nil {
		t.Fatal(err)
	}
	if args := req.GetArguments(); len(args) != 0 {
		t.Errorf("arguments %v, want none", args)
	}
}
