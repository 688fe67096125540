// Package agent runs run_agent_task's Plan-and-Resolve loop on the edge node, next to the
// device, inside the one task that holds it.
//
// Run looks at the screen and asks the model for a plan (the function plan, 1 to
// Budget.MaxSteps steps), then resolves the steps one by one: each model turn sees the goal,
// the plan, what the earlier steps found, and the screen now (a screenshot and its element
// listing); the model acts through the device's tools and ends the step with step_done, or the
// whole task with finished. Budgets (actions, tokens), a loop detector and the caller's ctx
// bound the run; whatever happens, Run returns the Task with its steps, tool calls and the
// actions to turn it into a test, and Task.Markdown is the report the seed's MCP server sends.
//
// The package knows nothing of the node: it acts through Device, which the node implements
// with its tool catalogue, and talks to any model.Chatter.
package agent
