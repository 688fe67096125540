package broker

import (
	"log/slog"
	"strings"
	"testing"
)

// A connection error names the server but never its password or token.
func TestConnectErrorHidesSecrets(t *testing.T) {
	for _, u := range []string{"nats://ops:s3cr3t-pass@127.0.0.1:1", "nats://t0ken-abc@127.0.0.1:1,nats://127.0.0.1:2"} {
		_, err := Connect(ConnectOptions{URL: u, Name: "t"}, slog.New(slog.DiscardHandler))
		if err == nil {
			t.Fatalf("%s: connected to nothing", u)
		}
		if strings.Contains(err.Error(), "s3cr3t-pass") || strings.Contains(err.Error(), "t0ken-abc") {
			t.Errorf("error shows the secret: %v", err)
		}
		if !strings.Contains(err.Error(), "127.0.0.1:1") {
			t.Errorf("error does not name the server: %v", err)
		}
	}
}
