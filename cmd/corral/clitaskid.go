package main

import (
	"context"
)

// sentTask is the id of the last task this command sent ("" for none): a corral call sends
// one, its tool's.
func (f *cliFarm) sentTask() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.last
}

// withTaskID is the in-process front door's withTaskID: it adds to err, when ctx ended (an
// interrupt, or --timeout), the id of the task this command sent, which the front door knows
// without asking (its get_latest_task would fall back on an earlier command's task when this
// one's never reached a node).
func (f *cliFarm) withTaskID(ctx context.Context, err error) error {
	if err == nil || ctx.Err() == nil {
		return err
	}
	if id := f.sentTask(); id != "" {
		return &interruptedTask{id: id, err: err}
	}
	return err
}
