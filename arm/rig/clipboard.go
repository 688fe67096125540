package rig

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"strings"

	"github.com/corral-farm/corral/internal/redact"
)

// Clipboard puts text on the phone's clipboard by a way around the finger, which cannot: a
// helper app on the phone, or a computer whose clipboard the phone shares.
type Clipboard interface {
	SetClipboard(ctx context.Context, text string) error
}

// SetClipboard puts text on the phone's clipboard through the rig's helper (Config.Clipboard).
func (d *Driver) SetClipboard(ctx context.Context, text string) error {
	if d.cfg.Clipboard == nil {
		return d.wrap("set clipboard", ErrNoClipboard, "a finger cannot fill a clipboard: name a helper for the rig in "+
			"the rigs file (clipboard: url of a helper app, or command such as [pbcopy]; docs/arm.md), or type the "+
			"text on the on-screen keyboard, a tap_xy on each key")
	}
	if err := d.cfg.Clipboard.SetClipboard(ctx, text); err != nil {
		return d.wrap("set clipboard", err, "check the rig's clipboard helper")
	}
	return nil
}

// HTTPClipboard posts the text (text/plain, UTF-8) to a helper app on the phone that puts it
// on the clipboard, or to a bridge to one; any 2xx answer means done. corral sim arm serves one
// at /clipboard.
type HTTPClipboard struct {
	URL    string
	Client *http.Client // default http.DefaultClient
}

// SetClipboard posts text.
func (h HTTPClipboard) SetClipboard(ctx context.Context, text string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.URL, strings.NewReader(text))
	if err != nil {
		return fmt.Errorf("clipboard helper %s: %w", h.URL, err)
	}
	req.Header.Set("Content-Type", "text/plain; charset=utf-8")
	c := h.Client
	if c == nil {
		c = http.DefaultClient
	}
	resp, err := c.Do(req)
	if err != nil {
		return fmt.Errorf("clipboard helper %s: %w (is the helper app running on the phone?)", h.URL, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 200))
		return fmt.Errorf("clipboard helper %s: %s: %s", h.URL, resp.Status, hideText(strings.TrimSpace(string(msg)), text))
	}
	return nil
}

// CommandClipboard runs a command with the text on its standard input, never in its
// arguments: pbcopy on a Mac signed in to the phone's Apple ID (Universal Clipboard hands it
// to the iPhone), or a script that reaches a helper app.
type CommandClipboard struct {
	Args []string
}

// SetClipboard runs the command.
func (c CommandClipboard) SetClipboard(ctx context.Context, text string) error {
	cmd := exec.CommandContext(ctx, c.Args[0], c.Args[1:]...)
	cmd.Stdin = strings.NewReader(text)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if len(msg) > 200 {
			msg = msg[:200] + "…"
		}
		return fmt.Errorf("clipboard helper %s: %w: %s", c.Args[0], err, hideText(msg, text))
	}
	return nil
}

// hideText takes secret out of s by the rule of task records (internal/redact): a helper that
// echoes what it was given must not put the text into an error, a record or a log.
func hideText(s, secret string) string {
	return redact.NewSecrets("[redacted]", []string{secret}).Hide(s)
}
