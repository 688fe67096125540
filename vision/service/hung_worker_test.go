//go:build vision

package service

import (
	"bytes"
	"context"
	"net"
	"net/url"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/tcplink"
	"github.com/corral-farm/corral/vision"
)

// stoppableLink forwards a worker's NATS connection until stopped: then it holds what it reads,
// the connection open and silent, as a process stopped with kill -STOP leaves it; resumed, it
// passes what it held and goes on (kill -CONT). It goes on reading while stopped, as the kernel
// would buffer for the stopped process, so that it can count the diff requests the server
// handed the worker meanwhile.
type stoppableLink struct {
	stopped   atomic.Bool
	resume    chan struct{}
	heldDiffs atomic.Int32 // diff requests sent to the queue group that reached the worker while stopped
}

// diffDelivery is how the server's delivery of a diff sent to the queue group begins (MSG or HMSG).
var diffDelivery = []byte("MSG " + vision.Prefix + "." + vision.EndpointDiff + " ")

func (l *stoppableLink) pipe(dst, src net.Conn) {
	chunks := make(chan []byte, 4096)
	done := make(chan struct{})
	go func() {
		defer close(done)
		failed := false
		for c := range chunks {
			if l.stopped.Load() {
				<-l.resume
			}
			if !failed {
				_, err := dst.Write(c)
				failed = err != nil
			}
		}
	}()
	defer func() { close(chunks); <-done }()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			if l.stopped.Load() {
				l.heldDiffs.Add(int32(bytes.Count(buf[:n], diffDelivery)))
			}
			chunks <- bytes.Clone(buf[:n])
		}
		if err != nil {
			return
		}
	}
}

// A worker that hung with a request (its process stopped) costs that call the hung check (3 s,
// and the ping's 2 s), not its 20 s attempt: the request goes to the healthy worker, which
// answers it. The calls after pass the hung worker over, so the server hands it none, until it
// answers the workers' ping again: then it is sent requests again. Calls are told apart by
// which worker the server handed them to, not by how long they took.
func TestCallMovesFromAHungWorkerToAHealthyOne(t *testing.T) {
	f := authFarm(t)
	farmURL, err := url.Parse(f.URL)
	require.NoError(t, err)
	link := &stoppableLink{resume: make(chan struct{})}
	linked := *farmURL
	linked.Host = tcplink.Forward(t, farmURL.Host, link.pipe)
	resumed := false
	resume := func() {
		if !resumed {
			resumed = true
			link.stopped.Store(false)
			close(link.resume)
		}
	}
	t.Cleanup(resume) // before Forward's clean-up waits for the pipes
	_, _, hungReg := realWorkerVia(t, f, linked.String(), "to-hang", nil)
	_, _, healthyReg := realWorker(t, f, "healthy", nil)

	const attempt = 20 * time.Second // a node's
	client := nodeClient(t, f, attempt)
	frame := screenPNG(t, 320, 120, "Settings")
	diff := func() (time.Duration, error) {
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		defer cancel()
		began := time.Now()
		res, err := client.Diff(ctx, vision.DiffRequest{V: vision.WireVersion, Before: frame, After: frame})
		if err == nil && res.Changed {
			t.Errorf("the engine saw a change between a frame and itself")
		}
		return time.Since(began), err
	}
	// The client knows both workers: each answered it.
	require.NoError(t, client.Ping(t.Context()))
	eventually(t, func() bool {
		_, err := diff()
		require.NoError(t, err)
		return requests(hungReg, vision.EndpointDiff, OutcomeOK) > 0 && requests(healthyReg, vision.EndpointDiff, OutcomeOK) > 0
	}, "both workers answered a diff")

	link.stopped.Store(true)
	hungHad := requests(hungReg, vision.EndpointDiff, OutcomeOK)
	// The queue group hands each request to either worker: the first the hung one takes waits.
	var took time.Duration
	for try := 0; link.heldDiffs.Load() == 0; try++ {
		require.Less(t, try, 40, "the queue group never gave the hung worker a request")
		took, err = diff()
		require.NoError(t, err, "a call the hung worker may have taken")
	}
	t.Logf("the call the hung worker took was answered after %s", took)
	assert.Less(t, took, attempt/2, "the hung check's bound (3 s + the ping's 2 s), not the %s attempt", attempt)
	healthyHad := requests(healthyReg, vision.EndpointDiff, OutcomeOK)
	const after = 8
	for range after {
		_, err := diff()
		require.NoError(t, err)
	}
	assert.EqualValues(t, 1, link.heldDiffs.Load(), "calls after the hung one was found were handed to it")
	eventually(t, func() bool { return requests(healthyReg, vision.EndpointDiff, OutcomeOK) == healthyHad+after },
		"the healthy worker answered every call after")

	resume()
	// Back, it answers what it held (the request moved off it) and, once a ping finds it, new ones.
	eventually(t, func() bool {
		_, err := diff()
		require.NoError(t, err)
		return requests(hungReg, vision.EndpointDiff, OutcomeOK) >= hungHad+2
	}, "the worker that hung is sent requests again once it answers")
}
