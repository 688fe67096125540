package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"

	"github.com/corral-farm/corral/nodes/agent/model/modelsim"
)

// runSimModel serves a scripted model: `corral sim model --listen 127.0.0.1:PORT --script FILE`
// answers the OpenAI-compatible chat API, where a node's OPENAI_BASE_URL points, with FILE's
// turns, one per request, so an agent task runs end to end without a real model.
func runSimModel(ctx context.Context, args []string) error { return simModel(ctx, args, os.Stdout) }

// simModel is runSimModel printing the node's settings to out.
func simModel(ctx context.Context, args []string, out io.Writer) error {
	f := newFlags("sim model")
	listen := f.String("listen", "127.0.0.1:8089", "address of the chat API, whose root (OPENAI_BASE_URL) is http://ADDR/v1 (port 0: a free port)")
	script := f.String("script", "", "YAML or JSON file of the turns to answer, one per model request, in order (docs/agent.md, \"A scripted model\")")
	var turns []modelsim.Turn
	log, stop, err := f.start(args, func() error {
		if err := checkListen("--listen", *listen, "127.0.0.1:8089"); err != nil {
			return err
		}
		if strings.TrimSpace(*script) == "" {
			return badValue(errors.New("--script: give the file of turns the model answers, e.g. --script turns.yaml (docs/agent.md, \"A scripted model\")"))
		}
		var err error
		turns, err = loadModelScript(*script)
		return err
	})
	if err != nil || stop {
		return err
	}
	srv, err := modelsim.Listen(*listen, scriptLogged(turns, log)...)
	if err != nil {
		return fmt.Errorf("--listen %s: %w", *listen, err)
	}
	defer srv.Close()
	srv.Beyond(func(_ modelsim.Request, n int) modelsim.Turn {
		// 410, not a 5xx: the model client retries a 5xx once, and the task would fail naming
		// the retry's request. The path goes last, as the client keeps 300 bytes of the message.
		msg := fmt.Sprintf("corral sim model: the script has %s, all answered; request %d is past its end: "+
			"restart corral sim model to play the script again from its first turn, or add turns to %s", turnsOf(len(turns)), n, *script)
		log.Warn("a model request past the end of the script: answered 410", "request", n, "turns", len(turns))
		return modelsim.Fail(http.StatusGone, msg)
	})
	base := baseURLOf(srv.URL())
	fmt.Fprintf(out, "export OPENAI_BASE_URL=%s\nexport OPENAI_MODEL=scripted   # any name: the script answers every model\n", base)
	log.Info("scripted model ready", "base_url", base, "script", *script, "turns", len(turns),
		"next", "OPENAI_BASE_URL="+base+" OPENAI_MODEL=scripted corral up")
	<-ctx.Done()
	return nil
}

// scriptLogged is turns, each logging which turn answers as it is taken.
func scriptLogged(turns []modelsim.Turn, log *slog.Logger) []modelsim.Turn {
	out := make([]modelsim.Turn, len(turns))
	for i, turn := range turns {
		out[i] = modelsim.Turn{Reply: func(modelsim.Request) modelsim.Turn {
			var calls []string
			for _, c := range turn.ToolCalls {
				calls = append(calls, c.Name)
			}
			log.Info("answering a model request", "turn", fmt.Sprintf("%d of %d", i+1, len(turns)), "tool_calls", strings.Join(calls, ","),
				"text", cutRunes(turn.Text, 80))
			return turn
		}}
	}
	return out
}

// baseURLOf is the API root of a server at url (http://host:port): a host that is every
// address (0.0.0.0, [::]) is reached on this machine as 127.0.0.1.
func baseURLOf(url string) string {
	hostPort := strings.TrimPrefix(url, "http://")
	if host, port, err := net.SplitHostPort(hostPort); err == nil {
		if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
			hostPort = net.JoinHostPort("127.0.0.1", port)
		}
	}
	return "http://" + hostPort + "/v1"
}

// turnsOf is "1 turn" or "n turns".
func turnsOf(n int) string {
	if n == 1 {
		return "1 turn"
	}
	return fmt.Sprintf("%d turns", n)
}

// cutRunes is s cut to n runes, with … where it was cut.
func cutRunes(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
