package model

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// MaxAnswerBytes bounds the body of one answer, JSON or a whole stream, errors included. A
// chat turn of a few thousand tokens is some kilobytes as JSON and a megabyte or two streamed
// (each chunk repeats the envelope); more is a server gone wrong, whose answer would otherwise
// be read whole into memory and replayed to the model.
const MaxAnswerBytes = 8 << 20

// errTooLarge is what reading an answer past MaxAnswerBytes returns to go-openai.
var errTooLarge = errors.New("answer over the size limit")

// answerState is what the transport saw of one call's answer, for explain: go-openai's errors
// keep neither the headers (Retry-After) nor whether the body arrived whole. One call's
// reads all happen on its own goroutine, so they need no lock; sent is set from the
// transport's.
type answerState struct {
	sent       atomic.Bool // the request was written whole
	status     int
	retryAfter string // the Retry-After header, as sent
	whole      bool   // the body was read to its end
	tooLarge   bool   // the body went past MaxAnswerBytes
	at         time.Time
}

type answerStateKey struct{}

// withAnswerState gives ctx a fresh answerState for the call it carries.
func withAnswerState(ctx context.Context) (context.Context, *answerState) {
	st := &answerState{}
	return context.WithValue(ctx, answerStateKey{}, st), st
}

// answerStateOf is ctx's answerState; a throwaway one when it has none.
func answerStateOf(ctx context.Context) *answerState {
	if st, ok := ctx.Value(answerStateKey{}).(*answerState); ok {
		return st
	}
	return &answerState{}
}

// note records resp's status and headers, and bounds its body.
func (st *answerState) note(resp *http.Response) {
	st.status, st.retryAfter, st.at = resp.StatusCode, resp.Header.Get("Retry-After"), time.Now()
	resp.Body = &boundedBody{rc: resp.Body, st: st}
}

// boundedBody reads at most MaxAnswerBytes and notes how the body ended.
type boundedBody struct {
	rc   io.ReadCloser
	read int64
	st   *answerState
}

func (b *boundedBody) Read(p []byte) (int, error) {
	if room := MaxAnswerBytes + 1 - b.read; int64(len(p)) > room {
		p = p[:room] // one byte past the limit tells a body of exactly the limit from a longer one
	}
	n, err := b.rc.Read(p)
	b.read += int64(n)
	if over := b.read - MaxAnswerBytes; over > 0 {
		b.st.tooLarge = true
		return n - int(over), errTooLarge
	}
	if errors.Is(err, io.EOF) {
		b.st.whole = true
	}
	return n, err
}

func (b *boundedBody) Close() error { return b.rc.Close() }

// retryAfter is the wait the server asked for (Retry-After: seconds or an HTTP date), false
// when it asked for none or wrote something else.
func (st *answerState) retryAfterWait() (time.Duration, bool) {
	v := strings.TrimSpace(st.retryAfter)
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		if secs < 0 {
			return 0, false
		}
		return time.Duration(min(secs, int64(24*time.Hour/time.Second))) * time.Second, true
	}
	when, err := http.ParseTime(v)
	if err != nil {
		return 0, false
	}
	return max(when.Sub(st.at), 0), true
}

// retryAfterError carries the server's Retry-After with an error that wraps the reason.
type retryAfterError struct {
	err   error
	after time.Duration
}

func (e *retryAfterError) Error() string { return e.err.Error() }
func (e *retryAfterError) Unwrap() error { return e.err }

// RetryAfter is how long the server that failed a call with err asked to be left alone
// (its Retry-After on a 429 or 503); false when it did not say.
func RetryAfter(err error) (time.Duration, bool) {
	var ra *retryAfterError
	if errors.As(err, &ra) {
		return ra.after, true
	}
	return 0, false
}
