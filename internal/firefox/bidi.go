package firefox

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"time"

	"golang.org/x/net/websocket"
)

// origin is the Origin the client's handshake sends (golang.org/x/net/websocket always sends
// one); Firefox refuses a WebSocket with an Origin it was not told to allow.
const origin = "http://127.0.0.1"

// Options says how to start Firefox.
type Options struct {
	Path          string // the binary; Find's when empty
	Width, Height int    // its pages' viewport, in CSS pixels; 1280×800 when zero
}

// Browser is a headless Firefox with one WebDriver BiDi session. Commands may be sent from
// several goroutines.
type Browser struct {
	cmd     *exec.Cmd
	exited  chan struct{} // closed once the process has exited
	profile string
	conn    *websocket.Conn
	opts    Options

	mu      sync.Mutex
	nextID  int
	pending map[int]chan message
	errors  []string // what its pages logged as errors (see Errors)
	readErr error    // why the connection ended, once it has
}

// message is anything Firefox sends: a command's answer (id, and result or error) or an event.
type message struct {
	ID      *int            `json:"id"`
	Type    string          `json:"type"` // success, error or event
	Result  json.RawMessage `json:"result"`
	Error   string          `json:"error"`
	Message string          `json:"message"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
}

// Start starts a headless Firefox with a fresh profile on a port of its choosing, and opens a
// BiDi session with it. ctx bounds the start only; Close ends the browser.
func Start(ctx context.Context, opts Options) (*Browser, error) {
	path := opts.Path
	if path == "" {
		var err error
		if path, err = Find(); err != nil {
			return nil, err
		}
	}
	if opts.Width == 0 || opts.Height == 0 {
		opts.Width, opts.Height = 1280, 800
	}
	profile, err := os.MkdirTemp("", "corral-firefox-")
	if err != nil {
		return nil, fmt.Errorf("firefox: a profile directory: %w", err)
	}
	b := &Browser{profile: profile, opts: opts, exited: make(chan struct{}), pending: map[int]chan message{}}
	// Port 0: Firefox picks a free one and says which on stderr, so two tests never race for one.
	b.cmd = exec.Command(path, "--headless", "--no-remote", "--profile", profile,
		"--remote-debugging-port=0", "--remote-allow-origins="+origin, "about:blank")
	b.cmd.Env = append(os.Environ(), "MOZ_CRASHREPORTER_DISABLE=1")
	stderr := newStderrWatch()
	b.cmd.Stderr = stderr
	b.cmd.WaitDelay = 5 * time.Second // its content processes share its stderr, and may outlive it a little
	if err := b.cmd.Start(); err != nil {
		os.RemoveAll(profile)
		return nil, fmt.Errorf("firefox: starting %s: %w", path, err)
	}
	go func() { b.cmd.Wait(); close(b.exited) }()

	select {
	case url := <-stderr.found:
		err = b.connect(ctx, url)
	case <-b.exited:
		err = fmt.Errorf("firefox exited before it started its WebDriver BiDi server; it said:\n%s", stderr.said())
	case <-ctx.Done():
		err = fmt.Errorf("firefox did not start its WebDriver BiDi server: %w; it said:\n%s", context.Cause(ctx), stderr.said())
	}
	if err != nil {
		b.Close()
		return nil, err
	}
	return b, nil
}

// connect opens the WebSocket at url+"/session" and a session on it, which hears the pages' log.
func (b *Browser) connect(ctx context.Context, url string) error {
	cfg, err := websocket.NewConfig(url+"/session", origin)
	if err != nil {
		return fmt.Errorf("firefox: %w", err)
	}
	if b.conn, err = cfg.DialContext(ctx); err != nil {
		return fmt.Errorf("firefox: connecting to %s: %w", url, err)
	}
	go b.read()
	if _, err := b.Command(ctx, "session.new", map[string]any{"capabilities": map[string]any{}}); err != nil {
		return err
	}
	_, err = b.Command(ctx, "session.subscribe", map[string]any{"events": []string{"log.entryAdded"}})
	return err
}

// read hands each answer to the command waiting for it and keeps the errors pages log, until
// the connection ends; then it fails the commands still waiting.
func (b *Browser) read() {
	var err error
	for {
		var m message
		if err = websocket.JSON.Receive(b.conn, &m); err != nil {
			break
		}
		b.mu.Lock()
		if m.ID != nil {
			if ch, ok := b.pending[*m.ID]; ok {
				delete(b.pending, *m.ID)
				ch <- m
			}
		} else if m.Type == "event" && m.Method == "log.entryAdded" {
			b.logged(m.Params)
		}
		b.mu.Unlock()
	}
	b.mu.Lock()
	b.readErr = fmt.Errorf("firefox: the WebDriver BiDi connection ended: %w", err)
	for id, ch := range b.pending {
		delete(b.pending, id)
		close(ch)
	}
	b.mu.Unlock()
}

// Command sends a command and returns its result, or the error Firefox answered.
func (b *Browser) Command(ctx context.Context, method string, params any) (json.RawMessage, error) {
	ch := make(chan message, 1)
	b.mu.Lock()
	if b.readErr != nil {
		b.mu.Unlock()
		return nil, b.readErr
	}
	b.nextID++
	id := b.nextID
	b.pending[id] = ch
	b.mu.Unlock()
	if err := websocket.JSON.Send(b.conn, map[string]any{"id": id, "method": method, "params": params}); err != nil {
		b.forget(id)
		return nil, fmt.Errorf("firefox: sending %s: %w", method, err)
	}
	select {
	case m, ok := <-ch:
		if !ok {
			b.mu.Lock()
			defer b.mu.Unlock()
			return nil, fmt.Errorf("%s: %w", method, b.readErr)
		}
		if m.Type == "error" {
			return nil, fmt.Errorf("firefox: %s: %s: %s", method, m.Error, m.Message)
		}
		return m.Result, nil
	case <-ctx.Done():
		b.forget(id)
		return nil, fmt.Errorf("firefox: %s: %w", method, context.Cause(ctx))
	}
}

func (b *Browser) forget(id int) {
	b.mu.Lock()
	delete(b.pending, id)
	b.mu.Unlock()
}

// Close ends the session and the browser (killed if it has not quit within 10 s, or at once
// when it never had a session), and removes its profile.
func (b *Browser) Close() error {
	grace := time.Duration(0)
	if b.conn != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		b.Command(ctx, "browser.close", map[string]any{}) // Firefox may go before it answers
		cancel()
		b.conn.Close()
		grace = 10 * time.Second
	}
	select {
	case <-b.exited:
	case <-time.After(grace):
		b.cmd.Process.Kill()
		<-b.exited
	}
	if err := os.RemoveAll(b.profile); err != nil {
		return fmt.Errorf("firefox: removing its profile: %w", err)
	}
	return nil
}
