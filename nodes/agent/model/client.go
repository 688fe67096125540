package model

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"
	"unicode/utf8"

	openai "github.com/sashabaranov/go-openai"
)

// Client is a Chatter for any OpenAI-compatible chat-completions server. It is safe for
// concurrent use.
type Client struct {
	cfg     Config
	oc      *openai.Client
	log     *slog.Logger
	metrics *Metrics
}

// Option configures a Client beyond its Config.
type Option func(*Client)

// WithMetrics counts the client's requests, and the agent tasks that use it, in m.
func WithMetrics(m *Metrics) Option { return func(c *Client) { c.metrics = m } }

var _ Chatter = (*Client)(nil)

// NewClient checks cfg and returns a client for it that logs each call at debug level to log
// (nil: nowhere). Deadlines come from the ctx of each call, not from the client: a streamed
// answer may rightly take minutes.
func NewClient(cfg Config, log *slog.Logger, opts ...Option) (*Client, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if w := cfg.PathWarning(); w != "" {
		log.Warn(w)
	}
	oc := openai.DefaultConfig("") // the key goes in through bearer
	oc.BaseURL = cfg.baseURL()
	oc.HTTPClient = newBearer(cfg.APIKey)
	c := &Client{cfg: cfg, oc: openai.NewClientWithConfig(oc), log: log.With("model", cfg.Model)}
	for _, o := range opts {
		o(c)
	}
	return c, nil
}

// Metrics is where the client counts (nil: nowhere); the agent counts its tasks there too.
func (c *Client) Metrics() *Metrics { return c.metrics }

// String names the endpoint and model, for logs and %v; the key never shows.
func (c *Client) String() string { return "model.Client{" + c.cfg.String() + "}" }

// Streams says whether every call streams (Config.Stream), so a caller knows OnDelta will
// see the text in pieces while the model writes, not once at the end.
func (c *Client) Streams() bool { return c.cfg.Stream }

// Chat sends one turn and returns the answer; it streams when the Request or the Config asks
// for it. An answer with neither text nor tool calls is an error (ErrEmptyAnswer: the loop has
// nothing to act on) that still comes with the Response, for its FinishReason and Usage.
func (c *Client) Chat(ctx context.Context, req Request) (Response, error) {
	req.Stream = req.Stream || c.cfg.Stream
	creq, err := chatRequest(c.cfg.Model, req)
	if err != nil {
		return Response{}, fmt.Errorf("model request: %w", err)
	}
	ctx, st := withAnswerState(ctx)
	start := time.Now()
	var resp Response
	if req.Stream {
		resp, err = c.stream(ctx, creq, req.OnDelta)
	} else {
		resp, err = c.complete(ctx, creq)
		if err == nil && req.OnDelta != nil && resp.Text != "" {
			req.OnDelta(c.Scrub(resp.Text))
		}
	}
	resp = c.scrubAnswer(resp)
	if err == nil && strings.TrimSpace(resp.Text) == "" && len(resp.ToolCalls) == 0 {
		err = c.empty(resp.FinishReason)
	}
	took := time.Since(start)
	c.metrics.request(ctx, st, err, took, resp.Usage)
	out, errRunes := outcome(ctx, st, err), 0
	if err != nil {
		errRunes = utf8.RuneCountInString(err.Error())
		err = &callError{status: st.status, outcome: out, err: err}
	}
	// Not err's text: it may quote the server's error body, which may echo the request.
	c.log.LogAttrs(ctx, slog.LevelDebug, "model call",
		slog.Int("messages", len(req.Messages)), slog.Int("tools", len(req.Tools)), slog.Bool("stream", req.Stream),
		slog.Duration("took", took), slog.String("finish", resp.FinishReason), slog.Int("tool_calls", len(resp.ToolCalls)),
		slog.Int("prompt_tokens", resp.Usage.PromptTokens), slog.Int("completion_tokens", resp.Usage.CompletionTokens),
		slog.Int("status", st.status), slog.String("outcome", out), slog.Int("error_runes", errRunes))
	return resp, err
}

// complete is a non-streamed turn.
func (c *Client) complete(ctx context.Context, creq openai.ChatCompletionRequest) (Response, error) {
	out, err := c.oc.CreateChatCompletion(ctx, creq)
	if err != nil {
		return Response{}, c.explain(ctx, err)
	}
	if len(out.Choices) == 0 {
		return Response{}, fmt.Errorf("%w: %s sent an answer without choices", ErrMalformed, redactURL(c.cfg.baseURL()))
	}
	ch := out.Choices[0]
	resp := Response{Text: ch.Message.Content, FinishReason: string(ch.FinishReason), Usage: usage(&out.Usage)}
	if resp.Text == "" && ch.Message.Refusal != "" {
		return resp, fmt.Errorf("%w: model %q at %s refused: %s", ErrEmptyAnswer, c.cfg.Model, redactURL(c.cfg.baseURL()), clip(c.scrub(ch.Message.Refusal)))
	}
	for i, tc := range ch.Message.ToolCalls {
		resp.ToolCalls = append(resp.ToolCalls, toolCall(i, tc.ID, tc.Function.Name, tc.Function.Arguments))
	}
	return resp, nil
}

// stream is a streamed turn: text deltas go to onDelta as they come, tool calls are
// reassembled, and usage is taken from the last chunk when the server sends it.
func (c *Client) stream(ctx context.Context, creq openai.ChatCompletionRequest, onDelta func(string)) (Response, error) {
	s, err := c.oc.CreateChatCompletionStream(ctx, creq)
	if err != nil {
		return Response{}, streamHint(answerStateOf(ctx).status, c.explain(ctx, err))
	}
	defer s.Close()
	var (
		resp  Response
		text  strings.Builder
		calls callAssembler
	)
	for {
		chunk, err := s.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return Response{}, streamHint(answerStateOf(ctx).status, c.explain(ctx, err))
		}
		if chunk.Usage != nil {
			resp.Usage = usage(chunk.Usage)
		}
		for _, ch := range chunk.Choices {
			if ch.Index != 0 {
				continue // only one answer is asked for
			}
			if d := ch.Delta.Content; d != "" {
				text.WriteString(d)
				if onDelta != nil {
					onDelta(d)
				}
			}
			for _, tc := range ch.Delta.ToolCalls {
				calls.add(tc)
			}
			if ch.FinishReason != "" {
				resp.FinishReason = string(ch.FinishReason)
			}
		}
	}
	if resp.FinishReason == "" {
		return Response{}, c.unfinished(text.Len() > 0 || len(calls.calls) > 0)
	}
	resp.Text, resp.ToolCalls = text.String(), calls.done()
	return resp, nil
}

// unfinished explains a stream that ended without a finish_reason, which a real server always
// sends. go-openai ends a stream the same way on [DONE] and on a body that simply stops, and
// lets lines that are not "data:" pass. After part of an answer (started), the server or a
// proxy gave up mid-answer, which a retry may mend; before any, the server does not stream
// (it may have answered in plain JSON).
func (c *Client) unfinished(started bool) error {
	base := redactURL(c.cfg.baseURL())
	if started {
		return fmt.Errorf("%w: the stream from %s stopped mid-answer for model %q (no finish_reason): retrying may help; "+
			"if every streamed answer stops so, %s", ErrServer, base, c.cfg.Model, streamOff)
	}
	return fmt.Errorf("%w: %s sent no stream for model %q (no finish_reason): the server does not seem to stream: %s",
		ErrMalformed, base, c.cfg.Model, streamOff)
}

// empty explains an answer with nothing in it.
func (c *Client) empty(finish string) error {
	who := fmt.Sprintf("model %q at %s", c.cfg.Model, redactURL(c.cfg.baseURL()))
	switch finish {
	case FinishLength:
		return fmt.Errorf("%w: %s ran out of tokens before it wrote anything (finish_reason length): %s", ErrEmptyAnswer, who, LengthHint)
	case FinishContentFilter:
		return fmt.Errorf("%w: the server's content filter withheld the answer of %s (finish_reason content_filter): "+
			"reword the goal, or use a model or server without that filter", ErrEmptyAnswer, who)
	}
	return fmt.Errorf("%w: %s (finish_reason %q): ask again, or check that the model supports tool calling", ErrEmptyAnswer, who, finish)
}

func usage(u *openai.Usage) Usage {
	total := u.TotalTokens
	if total == 0 {
		total = u.PromptTokens + u.CompletionTokens
	}
	return Usage{PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens, TotalTokens: total}
}
