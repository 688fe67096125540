package broker

import (
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A watch's probe and CutOff's probe wait at once on the watch's one inbox, and each takes
// its own answer only. tokyo answers the watch's probe late, twice, after its timeout and
// before its round trip, while CutOff's probe of osaka, silent, waits: tokyo's answer counts
// for tokyo, and is not taken for osaka's.
func TestWatchAndCutOffProbesAtOnceTakeTheirOwnAnswers(t *testing.T) {
	nc := embeddedNATS(t)
	site, err := nats.Connect(nc.ConnectedUrl())
	require.NoError(t, err)
	t.Cleanup(site.Close)
	tokyoAsked, osakaAsked := make(chan *nats.Msg, 1), make(chan *nats.Msg, 4)
	_, err = site.ChanSubscribe(siteAPI("tokyo")+".INFO", tokyoAsked)
	require.NoError(t, err)
	_, err = site.ChanSubscribe(siteAPI("osaka")+".INFO", osakaAsked)
	require.NoError(t, err)
	require.NoError(t, site.Flush())
	discard := slog.New(slog.DiscardHandler)
	w := &SiteWatch{nc: nc, log: discard, up: map[string]bool{"osaka": true}, nodes: map[string]string{"n9": "osaka"}}

	type cutOff struct {
		site string
		cut  bool
	}
	cut := make(chan cutOff, 1)
	var once sync.Once
	w.roundTrip = func(within time.Duration) error {
		first := false
		once.Do(func() { first = true })
		if !first { // CutOff's probe's
			return nc.FlushTimeout(within)
		}
		// tokyo's probe timed out: CutOff probes osaka, and tokyo answers while it waits.
		go func() {
			s, c := w.CutOff(t.Context(), "n9")
			cut <- cutOff{s, c}
		}()
		select {
		case <-osakaAsked:
		case <-time.After(waitLong):
			t.Error("CutOff never probed osaka")
		}
		m := <-tokyoAsked
		for range 2 {
			if err := m.Respond([]byte(`{}`)); err != nil {
				return err
			}
		}
		if err := site.Flush(); err != nil {
			return err
		}
		return nc.FlushTimeout(within)
	}
	assert.NoError(t, w.probe(t.Context(), "tokyo", &ownServer{}, discard),
		"tokyo's answer, in time but read late while CutOff's probe waited, not counted")
	select {
	case c := <-cut:
		assert.Equal(t, cutOff{"osaka", true}, c, "osaka, silent, taken for up: tokyo's answer taken for osaka's")
	case <-time.After(waitLong):
		t.Fatal("CutOff of osaka's node never returned")
	}
}

// An answer that reached the connection before a probe's round trip counts even while the
// watch's reader still holds it, not handed on yet (its goroutine not run, or busy with other
// probes' answers): the probe has the reader hand on what came before, and waits for it. The
// round trip returns only once the reader has taken the answer off the inbox (and waits for
// the lock to hand it on): else the reader, run late, could take the probe's call to settle
// first, and the test would see neither that order nor the call.
func TestSiteProbeWaitsForTheAnswerTheReaderHolds(t *testing.T) {
	nc := embeddedNATS(t)
	site, err := nats.Connect(nc.ConnectedUrl())
	require.NoError(t, err)
	t.Cleanup(site.Close)
	asked := make(chan *nats.Msg, 1)
	_, err = site.ChanSubscribe(siteAPI("tokyo")+".INFO", asked)
	require.NoError(t, err)
	require.NoError(t, site.Flush())
	discard := slog.New(slog.DiscardHandler)
	w := &SiteWatch{nc: nc, log: discard}

	held := make(chan struct{})
	w.roundTrip = func(within time.Duration) error {
		// The reader, idle, takes tokyo's answer off the inbox and cannot hand it on while the
		// watch's lock is held.
		w.answers.mu.Lock()
		m := <-asked
		if err := m.Respond([]byte(`{}`)); err != nil {
			w.answers.mu.Unlock()
			return err
		}
		if err := site.Flush(); err != nil {
			w.answers.mu.Unlock()
			return err
		}
		err := nc.FlushTimeout(within)
		// The answer is on the inbox (the round trip came after it): wait until the reader holds it.
		assert.Eventually(t, func() bool { return len(w.answers.inbox) == 0 }, waitLong, time.Millisecond,
			"the reader never took tokyo's answer off the inbox")
		go func() {
			defer close(held)
			defer w.answers.mu.Unlock()
			assert.Eventually(t, func() bool { return len(w.answers.settles) > 0 }, waitLong, time.Millisecond,
				"the probe never asked the reader for what came before its round trip")
		}()
		return err
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*waitLong)
	defer cancel()
	assert.NoError(t, w.probe(ctx, "tokyo", &ownServer{}, discard), "an answer the reader held at the probe's round trip not counted")
	<-held
}
