// Package steps runs scripted steps through a Corral gateway: HttpRunner-style actions
// ({method, params, options}, as HttpRunner's MobileAction) or plain tool calls ({tool,
// arguments}), in YAML or JSON, each one a tools/call on the very same tools an agent uses.
//
// A run has three stages, each in its own file:
//
//   - step.go parses a document: a list of steps, or {name, serial, platform, steps}.
//   - convert.go turns an action into a tool call, per method, as HttpRunner's
//     ActionTool.ConvertActionToCallToolRequest does; catalog.go checks every call against the
//     gateway's tools/list (names, required arguments, the input schemas) before anything runs.
//   - run.go calls the tools in order, stops at the first failure (unless the step says
//     ignore_error or the run keeps going), and report.go, text.go and junit.go write the
//     per-step report for a terminal, as JSON, and as JUnit XML for CI systems. expect.go is a
//     step's check of the screen after it (expect: a text the UI tree must show).
//
// export.go goes the other way: an agent task's record (run_agent_task's actions) becomes a
// steps file that replays it without a model.
//
// docs/scripted-runs.md lists every method with its params.
package steps
