package mcp

import "fmt"

// taskIDArgs accept a task id as task_id (Corral) or taskId (phone-agent seed).
type taskIDArgs struct {
	TaskID  string `json:"task_id,omitempty"`
	TaskID2 string `json:"taskId,omitempty"`
}

// id returns the task id given, checking that the two spellings agree and the id is well-formed.
// It returns "" when neither was given.
func (a *taskIDArgs) id() (string, error) {
	if a.TaskID != "" && a.TaskID2 != "" && a.TaskID != a.TaskID2 {
		return "", fmt.Errorf("task_id and taskId name different tasks (%q, %q); give one", a.TaskID, a.TaskID2)
	}
	id := a.TaskID + a.TaskID2
	if a.TaskID != "" {
		id = a.TaskID
	}
	if id == "" {
		return "", nil
	}
	return id, checkID("task_id", id)
}
