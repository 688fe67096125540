package tools

import (
	"context"
	"encoding/json"
	"reflect"
	"sync"
	"time"
)

// Tool is everything about one device tool, in one place: its MCP definition (name,
// description, hints, argument and result types), how the node runs it (timeouts, Run) and where
// else it shows up (profiles, sequence steps, progress, the HttpRunner short form). The gateway's
// catalog, the node's ops, sequence steps, the profiles and mcp/steps all read the list All
// returns; a new tool is one file holding its Tool and one line in All.
type Tool struct {
	Name        string
	Description string // one sentence: tools/list is paid for in every agent's context
	Hints       Hints
	// Args is the argument struct: each field's limits are in its tags (see argschema.go), from
	// which both the input schema and DecodeArgs' checks come. Result is the structured result's
	// type, from which the output schema comes. Define fills both.
	Args, Result reflect.Type
	// ArgDesc overrides the descriptions of arguments, by name, for a tool that shares its
	// argument struct with others but says an argument differently (double_tap's bbox).
	ArgDesc map[string]string
	// Timeout is the default deadline; a caller may ask for less, or more up to MaxTimeout.
	Timeout, MaxTimeout time.Duration
	// Lasts, when set, says how long a task will take from its arguments (a sleep's length;
	// 0: it cannot tell), so that a busy answer to others says when the device frees rather
	// than only the deadline, an hour off for a sleep.
	Lasts func(args json.RawMessage) time.Duration
	// Profiles are the --tools profiles that show the tool besides "all" (mcp/profiles.go).
	Profiles []string
	// Step says whether a sequence step may run the tool, and what the PhysiClaw form's "arg"
	// is for it.
	Step StepForm
	// Progress says that Run reports progress: without a progress token the gateway forwards it
	// as logging messages.
	Progress bool
	// Background: a task of the tool runs to its end whatever becomes of its caller (only
	// abort_task stops it), one at a time per device, and with wait:false the caller is
	// answered at once with its task id (run_agent_task).
	Background bool
	// DefaultDevice: called without a serial, the tool runs on the farm's one device the
	// caller may use, as the phone-agent seed's tools, which take no arguments, assume.
	DefaultDevice bool
	// Short is the HttpRunner short form of the tool's params (mcp/steps).
	Short Short
	// Needs are the abilities a driver must have for the tool to run at all: a driver without
	// one is told Unsupported before Run, and a platform whose driver type lacks one is not
	// offered for the tool. Uses are the abilities Run takes when the driver has them (peek
	// reads the UI tree where there is one); they only document.
	Needs, Uses []Ability
	// Run does the work on t.Driver: Define sets it to decode t.Args (trusting nothing),
	// check Needs, and call the tool's typed run.
	Run func(ctx context.Context, t *Task) (Output, error)
}

// Define returns the tool t whose arguments are A and structured result R, run by run: run gets
// the arguments decoded and checked (DecodeArgs), and a driver with every ability of t.Needs.
func Define[A, R any](t Tool, run func(ctx context.Context, t *Task, a A) (Output, error)) Tool {
	t.Args, t.Result = reflect.TypeFor[A](), reflect.TypeFor[R]()
	needs, name := t.Needs, t.Name
	t.Run = func(ctx context.Context, task *Task) (Output, error) {
		var a A
		if err := DecodeArgs(task.Args, &a); err != nil {
			return Output{}, err
		}
		for _, n := range needs {
			if !n.in(task.Driver) {
				return Output{}, lacking(task.Driver, n)
			}
		}
		if b, ok := any(a).(behaved); ok && b.behaviour() != (Behaviour{}) {
			return behave(ctx, task, name, b.behaviour(), func(ctx context.Context, task *Task) (Output, error) { return run(ctx, task, a) })
		}
		return run(ctx, task, a)
	}
	return t
}

// Hints are a tool's MCP annotations. The zero value is an action that changes the device
// without destroying anything, is not idempotent and stays inside the farm.
type Hints struct {
	ReadOnly    bool // only looks (readOnlyHint; destructive and idempotent are then moot)
	Destructive bool // loses something: data, an app's state
	Idempotent  bool // a repeat changes nothing more
	OpenWorld   bool // reaches beyond the farm (a URL)
}

// Common hints.
var (
	ReadOnly = Hints{ReadOnly: true}
	Action   = Hints{}
)

// StepForm says whether a sequence step may run a tool, and what the PhysiClaw step form's
// "arg" is for it besides an object of arguments.
type StepForm int

const (
	NoStep     StepForm = iota // not in sequences: looks only, long, destructive, or sequence itself
	StepObject                 // arg is an object of arguments
	StepBBox                   // arg may be the bbox array
	StepText                   // arg may be the text string
)

// ShortKind is how an HttpRunner action's params (when not an object of arguments) become
// arguments; mcp/steps does the converting.
type ShortKind int

const (
	ShortNone       ShortKind = iota // no params
	ShortNumbers                     // a list of len(Keys) numbers, one per key
	ShortText                        // a string, the argument Keys[0]
	ShortBBox                        // a bbox [left, top, right, bottom], the argument bbox
	ShortSwipe                       // a direction string, or a list of numbers as ShortNumbers
	ShortSeconds                     // a number, or a string holding one: Keys[0]
	ShortWhole                       // a whole number: Keys[0]
	ShortNumberList                  // a number or a non-empty list of numbers: Keys[0], a list
	ShortSteps                       // a list of actions: sequence's steps
	ShortTextList                    // a non-empty list of strings: Keys[0]
)

// Short is a tool's HttpRunner short form: its kind, the arguments it fills, and how it is
// written (for errors and docs).
type Short struct {
	Kind  ShortKind
	Keys  []string
	Usage string
}

// Common short forms.
var (
	noParams    = Short{Usage: "no params"}
	packageName = Short{Kind: ShortText, Keys: []string{"packageName"}, Usage: `a package name, e.g. "com.corral.notes"`}
	relativeXY  = Short{Kind: ShortNumbers, Keys: []string{"x", "y"}, Usage: "[x, y] (relative 0-1)"}
	fromTo      = Short{Kind: ShortNumbers, Keys: []string{"from_x", "from_y", "to_x", "to_y"}, Usage: "[from_x, from_y, to_x, to_y] (relative 0-1)"}
	bboxShort   = Short{Kind: ShortBBox, Keys: []string{"bbox"}, Usage: "a bbox [left, top, right, bottom] (relative 0-1)"}
	textShort   = Short{Kind: ShortText, Keys: []string{"text"}, Usage: "the text (a string: quote digits, e.g. \"1234\")"}
)

// Profile names of the seeds (mcp/profiles.go adds the gateway's own tools to them).
const (
	HttpRunner = "httprunner"
	PhysiClaw  = "physiclaw"
	PhoneAgent = "phone-agent"
)

// All is every device tool, in the order tools/list shows them. Adding a tool is one file
// holding its Tool and one line here.
func All() []Tool {
	return []Tool{
		// Screen.
		getScreenSize(),
		screenshot(),
		takeScreenshot(),
		getSource(),
		// Touch.
		tapXY(),
		tapAbsXY(),
		doubleTapXY(),
		swipeTool(),
		drag(),
		// Keys and text.
		input(),
		pressButton(),
		home(),
		back(),
		// Apps.
		listPackages(),
		appLaunch(),
		appTerminate(),
		getForegroundApp(),
		// Time.
		sleep(),
		sleepMS(),
		sleepRandom(),
		// HttpRunner seed, added with the Android issue.
		swipeDirection(),
		swipeCoordinate(),
		appInstall(),
		appUninstall(),
		appClear(),
		setIME(),
		closePopupsTool(),
		// HttpRunner seed, vision (issue 10): find a text or an image, in the UI tree or by a
		// vision worker, and tap it.
		tapOCR(),
		tapCV(),
		swipeToTapApp(),
		swipeToTapText(),
		swipeToTapTexts(),
		// PhysiClaw seed: see, act at a bbox (swipe's bbox mode is in swipe), navigate, text,
		// sequences.
		peek(),
		tap(),
		doubleTap(),
		longPress(),
		homeScreen(),
		goBack(),
		forceQuit(),
		unlockPhone(),
		sendToClipboard(),
		sequence(),
		// Arm rigs (issue 11).
		armCalibrate(),
		armRecover(),
		// HttpRunner seed, web (issue 13).
		tapBySelector(),
		hoverBySelector(),
		secondaryClick(),
		secondaryClickBySelector(),
		webCloseTab(),
		webLoginNoneUI(),
		// Agent tasks (issue 14): phone-agent's run_agent_task, HttpRunner's AI tools.
		runAgentTask(),
		aiAction(),
		aiQuery(),
		finished(),
	}
}

// Lookup returns the tool called name. The gateway asks on every call: the tools are made once
// (All makes 43 of them, about 130 allocations) and never change.
func Lookup(name string) (Tool, bool) {
	t, ok := byName()[name]
	return t, ok
}

var byName = sync.OnceValue(func() map[string]Tool {
	m := map[string]Tool{}
	for _, t := range All() {
		m[t.Name] = t
	}
	return m
})

// InputSchema returns the properties of t's arguments as JSON Schema, by name, and the names of
// the required ones.
func (t Tool) InputSchema() (props map[string]map[string]any, required []string) {
	props, required = InputSchema(t.Args)
	for name, d := range t.ArgDesc {
		props[name]["description"] = d
	}
	return props, required
}

// op is the node half of t, run with env.
func (t Tool) op(env *Env) Op {
	run := t.Run
	op := Op{Name: t.Name, Timeout: t.Timeout, MaxTimeout: t.MaxTimeout, Lasts: t.Lasts,
		Run: func(ctx context.Context, task *Task) (Output, error) {
			tt := *task
			tt.Env = env
			return run(ctx, &tt)
		}}
	if t.holdsSecrets() {
		op.Secrets = t.Secrets
	}
	return op
}
