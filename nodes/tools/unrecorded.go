package tools

// UnrecordedError is an error whose words only the task's caller may read (a login endpoint's
// answer it quotes, which may hold a session token): the task's record keeps Instead in their
// place (broker.TaskResult.ErrorUnrecorded), as Output.Record does for a result.
type UnrecordedError struct {
	Err     error
	Instead string
}

func (e *UnrecordedError) Error() string { return e.Err.Error() }
func (e *UnrecordedError) Unwrap() error { return e.Err }
