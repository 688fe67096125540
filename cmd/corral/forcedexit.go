package main

import (
	"context"
	"fmt"
	"io"
	"sync"
)

// leftBehind is what a command would leave behind were a second signal to end it at once
// (os.Exit: no cleanup runs): a run's leased devices, its reports not written. signalContext
// keeps one in the command's context and says it before exiting, so that nothing is left
// silently.
type leftBehind struct {
	mu    sync.Mutex
	next  int
	notes map[int]func() string
}

type leftBehindKey struct{}

// withLeftBehind returns ctx carrying a new leftBehind.
func withLeftBehind(ctx context.Context) (context.Context, *leftBehind) {
	l := &leftBehind{notes: map[int]func() string{}}
	return context.WithValue(ctx, leftBehindKey{}, l), l
}

// onForcedExit adds note, asked for when a second signal ends the command ("" for nothing
// left); withdraw removes it once the command has cleaned up. Without a leftBehind in ctx (a
// test, another caller) it does nothing.
func onForcedExit(ctx context.Context, note func() string) (withdraw func()) {
	l, _ := ctx.Value(leftBehindKey{}).(*leftBehind)
	if l == nil {
		return func() {}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	id := l.next
	l.next++
	l.notes[id] = note
	return func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		delete(l.notes, id)
	}
}

// say writes the notes, one a line.
func (l *leftBehind) say(w io.Writer) {
	l.mu.Lock()
	notes := make([]func() string, 0, len(l.notes))
	for id := range l.next {
		if n, ok := l.notes[id]; ok {
			notes = append(notes, n)
		}
	}
	l.mu.Unlock()
	for _, n := range notes {
		if s := n(); s != "" {
			fmt.Fprintln(w, s)
		}
	}
}
