package model_test

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"log/slog"
	"strings"
	"testing"

	"github.com/corral-farm/corral/internal/logtest"
	"github.com/corral-farm/corral/nodes/agent/model"
	"github.com/corral-farm/corral/nodes/agent/model/modelsim"
)

// testKey is the key every test client uses; no log line or error may ever hold it.
const testKey = "sk-test-Zq8vKEY-must-never-leak-31337"

// newClient returns a client of srv with testKey, logging at debug level as JSON; when the
// test ends it fails if the key is in the log, and checks that something was logged at all.
func newClient(t *testing.T, baseURL, modelName string) *model.Client {
	t.Helper()
	logs := &logtest.Buffer{}
	log := slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	c, err := model.NewClient(model.Config{BaseURL: baseURL, APIKey: model.NewSecret(testKey), Model: modelName}, log)
	if err != nil {
		t.Fatalf("NewClient: %v", err)
	}
	t.Cleanup(func() {
		if strings.Contains(logs.String(), testKey) {
			t.Errorf("the API key is in the log:\n%s", logs)
		}
	})
	return c
}

// sim starts a modelsim server that requires testKey and closes it after the test.
func sim(t *testing.T, script ...modelsim.Turn) *modelsim.Server {
	t.Helper()
	s := modelsim.New(script...).RequireKey(testKey)
	t.Cleanup(s.Close)
	return s
}

// noKey fails the test if err's text holds the key.
func noKey(t *testing.T, err error) {
	t.Helper()
	if err != nil && strings.Contains(err.Error(), testKey) {
		t.Fatalf("the API key is in the error: %v", err)
	}
}

func user(text string) []model.Message {
	return []model.Message{{Role: model.RoleUser, Text: text}}
}

// pngBytes and jpegBytes are small real images, as a screenshot would be.
func pngBytes(t *testing.T) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, testImage()); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func jpegBytes(t *testing.T) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := jpeg.Encode(&b, testImage(), nil); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func testImage() image.Image {
	img := image.NewRGBA(image.Rect(0, 0, 8, 16))
	for x := range 8 {
		img.Set(x, x, color.RGBA{R: 255, A: 255})
	}
	return img
}
