package model

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	openai "github.com/sashabaranov/go-openai"
)

// What can go wrong with a model call; Chat's errors wrap one of these (or a context error),
// so the agent loop can tell a task to give up from one to retry.
var (
	ErrUnauthorized  = errors.New("the model endpoint refused the API key")
	ErrModelNotFound = errors.New("the model endpoint does not know the model")
	ErrRateLimited   = errors.New("the model endpoint is rate limiting")
	ErrBadRequest    = errors.New("the model endpoint rejected the request")
	ErrServer        = errors.New("the model server failed")
	ErrUnreachable   = errors.New("the model endpoint is unreachable")
	ErrMalformed     = errors.New("the model endpoint sent a malformed answer")
	ErrEmptyAnswer   = errors.New("the model answered with neither text nor tool calls")
	ErrTooLarge      = fmt.Errorf("the model's answer is over %d MiB", MaxAnswerBytes>>20)
)

// maxErrText bounds how much of a server's error body goes into an error: enough for its
// message, not a whole HTML page.
const maxErrText = 300

// explain turns an error from go-openai into one that says what to do. The server's own
// words are kept as text, with the API key scrubbed (some servers echo the key they refused),
// rather than wrapped, so no chain of errors can carry the key out.
func (c *Client) explain(ctx context.Context, err error) error {
	base, model := redactURL(c.cfg.baseURL()), c.cfg.Model
	st := answerStateOf(ctx)
	if ctxErr := ctx.Err(); ctxErr != nil {
		if errors.Is(ctxErr, context.DeadlineExceeded) {
			return fmt.Errorf("model %q at %s did not answer in time: %w: give the task more time or use a faster model", model, base, ctxErr)
		}
		return fmt.Errorf("model call to %s: %w", base, ctxErr)
	}
	if st.tooLarge || errors.Is(err, errTooLarge) {
		return fmt.Errorf("%w: %s sent more for model %q, which no chat turn needs (answer read no further): "+
			"check that the base URL is an OpenAI-compatible API root, and that the server is sane", ErrTooLarge, base, model)
	}
	status, text := 0, ""
	var apiErr *openai.APIError
	var reqErr *openai.RequestError
	switch {
	case errors.As(err, &apiErr):
		status, text = apiErr.HTTPStatusCode, apiErr.Message
	case errors.As(err, &reqErr):
		status, text = reqErr.HTTPStatusCode, strings.TrimSpace(string(reqErr.Body))
	}
	text = c.scrub(clip(text))
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		if !c.cfg.APIKey.IsSet() {
			return fmt.Errorf("%w: none was sent and %s wants one (%d: %s): set OPENAI_API_KEY or --openai-api-key-file", ErrUnauthorized, base, status, text)
		}
		return fmt.Errorf("%w: %s (%s answered %d: %s)", ErrUnauthorized, c.cfg.keyHint(), base, status, text)
	case status == http.StatusNotFound:
		return fmt.Errorf("%w: model %q at %s (404: %s): check OPENAI_MODEL or --openai-model against GET %s/models, and that the base URL is the API root (usually ending in /v1)",
			ErrModelNotFound, model, base, text, base)
	case status == http.StatusTooManyRequests:
		return st.withRetryAfter(fmt.Errorf("%w: %s (429: %s): retry later or raise the account's limits", ErrRateLimited, base, text))
	case status >= 500:
		return st.withRetryAfter(fmt.Errorf("%w: %s answered %d for model %q: %s: its own logs say why; retrying may help", ErrServer, base, status, model, text))
	case status >= 400 && refusesContent(status):
		return fmt.Errorf("%w: %s answered %d for model %q: %s: check that the model takes tools and images, and that the conversation fits its context",
			ErrBadRequest, base, status, model, text)
	case status >= 400:
		// Its own words say why (corral sim model's 410 says its script is used up): a hint
		// about tools and images would send the user the wrong way.
		return fmt.Errorf("%w: %s answered %d for model %q: %s", ErrBadRequest, base, status, model, text)
	case apiErr != nil:
		// An error event inside a stream: the server failed after it had started answering.
		return fmt.Errorf("%w: %s reported an error mid-answer for model %q: %s", ErrServer, base, model, text)
	case reqErr != nil:
		return fmt.Errorf("%w: %s answered %d: %s", ErrMalformed, base, status, text)
	}
	var syntaxErr *json.SyntaxError
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &syntaxErr) || errors.As(err, &typeErr) || errors.Is(err, openai.ErrTooManyEmptyStreamMessages) {
		return fmt.Errorf("%w: %s sent something that is not a chat-completions answer (%s): is the base URL an OpenAI-compatible API root, usually ending in /v1?",
			ErrMalformed, base, c.scrub(clip(err.Error())))
	}
	if errors.Is(err, openai.ErrChatCompletionInvalidModel) || errors.Is(err, openai.ErrReasoningToolsRequireResponses) {
		return fmt.Errorf("%w: model %q: %v: pick a chat-completions model that calls tools", ErrBadRequest, model, err)
	}
	var redirect *redirectError
	if errors.As(err, &redirect) {
		return fmt.Errorf("%w: %s redirects to %s, and a redirect would carry the API key there: set OPENAI_BASE_URL to the final URL",
			ErrUnreachable, base, redirect.to)
	}
	if errors.Is(err, io.ErrUnexpectedEOF) && st.whole {
		// The body arrived whole (a complete Content-Length, or the chunked end): its JSON stops short.
		return fmt.Errorf("%w: %s sent an answer for model %q that stops mid-JSON although the body arrived whole: "+
			"the server is faulty (its own logs say why), or the base URL is not an OpenAI-compatible API root", ErrMalformed, base, model)
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("%w: %s closed the connection mid-answer for model %q: retrying may help", ErrServer, base, model)
	}
	var urlErr interface{ Timeout() bool }
	if errors.As(err, &urlErr) && st.sent.Load() {
		// The server took the request, then closed the connection (EOF) or reset it without
		// a whole answer: it is there, so not unreachable, and a retry may find it well.
		return fmt.Errorf("%w: %s closed the connection without a whole answer for model %q (%w): the server crashed, "+
			"ran out of memory, or a proxy in between timed out; its own logs say why; retrying may help", ErrServer, base, model, transportCause(err))
	}
	if errors.As(err, &urlErr) {
		// Transport errors (refused, DNS, TLS, reset) name the URL but hold no key.
		return fmt.Errorf("%w: nothing answers at %s: %w: start the model server, or fix OPENAI_BASE_URL or --openai-base-url", ErrUnreachable, base, err)
	}
	return fmt.Errorf("model %q at %s: %s", model, base, c.scrub(clip(err.Error())))
}

// transportCause is err without the *url.Error around it, which names the URL: what
// happened on the connection (EOF, connection reset by peer) is what helps.
func transportCause(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// withRetryAfter gives err the server's Retry-After, when it sent one that parses.
func (st *answerState) withRetryAfter(err error) error {
	if after, ok := st.retryAfterWait(); ok {
		return &retryAfterError{err: fmt.Errorf("%w (%s)", err, askedWait(after)), after: after}
	}
	return err
}

// askedWait says the wait a Retry-After asks for: "now" when it is zero or a date already
// past, as "after 0s" would read as if something were odd.
func askedWait(after time.Duration) string {
	switch {
	case after <= 0:
		return "it asks to retry now"
	case after < time.Second:
		return fmt.Sprintf("it asks to retry after %s", after.Round(100*time.Millisecond))
	}
	return fmt.Sprintf("it asks to retry after %s", after.Round(time.Second))
}

// streamOff is the hint for a server that does not stream as OpenAI does.
const streamOff = "turn streaming off (drop --openai-stream, or set CORRAL_OPENAI_STREAM=false)"

// refusesContent says whether a 4xx refuses what the request holds (its tools, images or
// size), as 400, 413 and 422 do; 0 is a refusal by go-openai itself. Other statuses (405, 409,
// 410…) refuse for a reason only the server's message gives.
func refusesContent(status int) bool {
	switch status {
	case 0, http.StatusBadRequest, http.StatusRequestEntityTooLarge, http.StatusUnprocessableEntity:
		return true
	}
	return false
}

// streamHint adds to a streamed call's refusal (status: its HTTP status) or garbled answer
// that streaming may be the cause: some servers refuse it, or stream text but not tool calls.
func streamHint(status int, err error) error {
	if errors.Is(err, ErrBadRequest) && refusesContent(status) || errors.Is(err, ErrMalformed) {
		return fmt.Errorf("%w; if the server cannot stream this request, %s", err, streamOff)
	}
	return err
}

// scrub removes the API key from text that came from a server or a library.
func (c *Client) scrub(s string) string {
	return scrubKey(s, c.cfg.APIKey.Reveal())
}

func clip(s string) string {
	if len(s) <= maxErrText {
		return s
	}
	cut := maxErrText
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
