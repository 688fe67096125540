package tools

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/corral-farm/corral/broker"
)

// app_install cut off during the download of its appUrl (the server hanging up mid-body) says
// that calling it again is safe, as a cut push does (TestAppInstallSaysWhenItIsSafeToCallAgain),
// and nothing reached the device; the same call then installs the app. An app over the node's
// limit does not say it: calling again would not help.
func TestAppInstallCutMidDownloadSaysItIsSafeToCallAgain(t *testing.T) {
	body := bytes.Repeat([]byte("apk!"), 256<<10) // 1 MiB
	var served atomic.Int32
	url := hangUpOnce(t, body, &served)

	d, paths, contents := installer()
	_, _, err := runInstall(t, context.Background(), d, url)
	wantCode(t, err, broker.CodeDriver)
	if !strings.Contains(err.Error(), "stopped after") || !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("the download was cut mid-body: want 'stopped after …' wrapping io.ErrUnexpectedEOF, got %v", err)
	}
	if !strings.Contains(err.Error(), downloadSafe) {
		t.Errorf("a download cut mid-body: %q does not say %q", err, downloadSafe)
	}
	if len(*paths) != 0 {
		t.Fatalf("a cut download reached the device: %v", *paths)
	}

	if _, _, err := runInstall(t, context.Background(), d, url); err != nil {
		t.Fatalf("called again: %v", err)
	}
	if len(*paths) != 1 || (*contents)[0] != string(body) || served.Load() != 2 {
		t.Fatalf("called again: installed %d file(s), %d request(s) served; want the whole app once, after 2", len(*paths), served.Load())
	}

	_, _, err = runInstallWith(t, context.Background(), OpsConfig{MaxAppBytes: 1000}, d, url)
	wantCode(t, err, broker.CodeDriver)
	if !strings.Contains(err.Error(), "at most") || strings.Contains(err.Error(), downloadSafe) {
		t.Errorf("an app over the limit: %v; want the limit, not that calling again is safe", err)
	}
}

// hangUpOnce serves body over loopback as an app, by hand so that the first answer can stop
// where a dropped connection would: it announces the whole length, sends a quarter and closes
// the connection. Later answers are whole. served counts the requests.
func hangUpOnce(t *testing.T, body []byte, served *atomic.Int32) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer conn.Close()
				if _, err := http.ReadRequest(bufio.NewReader(conn)); err != nil {
					return
				}
				send := body
				if served.Add(1) == 1 {
					send = body[:len(body)/4]
				}
				fmt.Fprintf(conn, "HTTP/1.1 200 OK\r\nContent-Length: %d\r\nConnection: close\r\n\r\n", len(body))
				_, _ = conn.Write(send)
			}()
		}
	}()
	return "http://" + ln.Addr().String() + "/apps/com.example.cut.apk"
}
