package mcp

import (
	"fmt"
	"strings"
)

// An abort that finds a running task past its deadline, its driver still returning, aborts
// nothing there: the task ends timed_out (AbortAnswer.TimedOut). Every abort answer (abort_task
// by serial, task id or lease, the caller's own agent tasks, a lease group, emergency_stop,
// `corral abort`) says so in these words, or the caller reads that no task was running.

// timedOutWords says that the running tasks ids had timed out before the abort came, which
// therefore did not abort them: they end timed_out, as their records will say.
func timedOutWords(ids []string) string {
	if len(ids) > 1 {
		return fmt.Sprintf("tasks %s had timed out already (their deadlines passed before the abort came; their drivers are still returning): "+
			"they end timed_out, not aborted; get_task_result shows their records once they have ended.", strings.Join(ids, ", "))
	}
	return fmt.Sprintf("task %s had timed out already (its deadline passed before the abort came; its driver is still returning): "+
		"it ends timed_out, not aborted. get_task_result {\"taskId\": %q} shows its record once it has ended.", ids[0], ids[0])
}

// nothingAborted is the message of an abort on where that aborted nothing and found the
// running tasks ids past their deadlines (at least one).
func nothingAborted(where string, ids []string) string {
	return "Nothing aborted on " + where + ": " + timedOutWords(ids)
}

// withTimedOut is msg, a message of what an abort did, with what it adds for the running tasks
// ids the abort found past their deadlines; msg as it is when there are none.
func withTimedOut(msg string, ids []string) string {
	if len(ids) == 0 {
		return msg
	}
	if !strings.HasSuffix(msg, ".") {
		msg += "."
	}
	return msg + " " + timedOutWords(ids)
}
