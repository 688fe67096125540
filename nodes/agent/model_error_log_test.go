package agent_test

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/corral-farm/corral/internal/logtest"
	"github.com/corral-farm/corral/nodes/agent"
	"github.com/corral-farm/corral/nodes/agent/model"
	"github.com/corral-farm/corral/nodes/agent/model/modelsim"
)

// echoFail is a turn that answers status with an error body that echoes the request, as some
// servers do: the words around secret in the message that holds it (the goal).
func echoFail(status int, secret string, header map[string]string) modelsim.Turn {
	return modelsim.Turn{Reply: func(req modelsim.Request) modelsim.Turn {
		echo := "no message"
		for _, m := range req.Messages {
			if i := strings.Index(m.Text, secret); i >= 0 {
				echo = m.Text[max(0, i-40):min(len(m.Text), i+len(secret)+40)]
			}
		}
		return modelsim.Turn{Status: status, Error: "invalid request near: " + echo, Header: header}
	}}
}

// A model call that fails logs its status, outcome and the error's length, never the error's
// text: it quotes the server's error body, and a server that echoes the request puts the goal
// there (a passcode to type). The task's record keeps the text for its caller; the model
// client's own debug line is held to the same.
func TestModelErrorLogsHoldNoRequestText(t *testing.T) {
	t.Parallel()
	const secret = "pass-5824-MARKER"
	tooLong := map[string]string{"Retry-After": "3600"}
	cases := []struct {
		name   string
		script func() []modelsim.Turn
		line   string // the log line of the failure
		want   []string
		status string // the task's
	}{
		{"refused", func() []modelsim.Turn { return []modelsim.Turn{echoFail(http.StatusBadRequest, secret, nil)} },
			"model call failed", []string{"status=400", "outcome=" + model.OutcomeClientError, "error_runes="}, agent.StatusFailed},
		{"server failed twice", func() []modelsim.Turn {
			return []modelsim.Turn{echoFail(http.StatusBadGateway, secret, nil), echoFail(http.StatusBadGateway, secret, nil)}
		}, "model call failed; retrying once", []string{"status=502", "outcome=" + model.OutcomeServerError, "error_runes="}, agent.StatusFailed},
		{"rate limited for too long", func() []modelsim.Turn {
			return []modelsim.Turn{echoFail(http.StatusTooManyRequests, secret, tooLong)}
		}, "model call failed; not retried", []string{"status=429", "outcome=" + model.OutcomeRateLimited, "error_runes="}, agent.StatusFailed},
		{"no conclusion", func() []modelsim.Turn {
			return []modelsim.Turn{plan(step{Title: "Open Settings"}), tapLabel("Settings"), stepDone("success", "Settings is open"),
				echoFail(http.StatusBadRequest, secret, nil)}
		}, "no conclusion from the model", []string{"status=400", "outcome=" + model.OutcomeClientError, "error_runes="}, agent.StatusFinished},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			logs := &logtest.Buffer{}
			log := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
			srv := modelsim.New(c.script()...)
			t.Cleanup(srv.Close)
			client, err := model.NewClient(model.Config{BaseURL: srv.BaseURL(), Model: "modelsim"}, log)
			if err != nil {
				t.Fatal(err)
			}
			r := &rig{srv: srv, client: client, phone: newPhone(t), events: &events{}}
			o := r.options("Unlock with " + secret + " and open Settings")
			o.Log = log
			task := run(t, context.Background(), o)

			wantStatus(t, task, c.status)
			if c.status == agent.StatusFailed && !strings.Contains(task.Error, secret) {
				t.Errorf("the task's error %q lost the server's words its caller should see", task.Error)
			}
			line := logs.Line(c.line)
			for _, w := range c.want {
				if !strings.Contains(line, w) {
					t.Errorf("line %q does not say %s; log:\n%s", line, w, logs)
				}
			}
			if !strings.Contains(logs.Line(`msg="model call" `), "outcome=") {
				t.Errorf("the model client logged no call; log:\n%s", logs)
			}
			if all := logs.String(); strings.Contains(all, secret) || strings.Contains(all, "5824") {
				t.Errorf("the log holds the goal the server echoed:\n%s", all)
			}
		})
	}
}
