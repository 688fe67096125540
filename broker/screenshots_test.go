package broker

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"strings"
	"testing"
	"time"
)

// A screenshot saved for a task reads back as it was, under a name that says whose it is;
// saved again it is kept once; a name that is not a screenshot's is refused.
func TestScreenshotRoundTrip(t *testing.T) {
	s := openStores(t)
	ctx := t.Context()
	img := bytes.Repeat([]byte("jpeg "), 60_000) // 300 KB: three chunks
	name, err := s.SaveScreenshot(ctx, "t_1", img)
	if err != nil {
		t.Fatal(err)
	}
	if !ScreenshotOfTask(name, "t_1") || ScreenshotOfTask(name, "t_2") {
		t.Errorf("name %q does not say it is t_1's", name)
	}
	got, err := s.Screenshot(ctx, name)
	if err != nil || !bytes.Equal(got, img) {
		t.Fatalf("read back %d bytes, %v; want the %d saved", len(got), err, len(img))
	}
	again, err := s.SaveScreenshot(ctx, "t_1", img)
	if err != nil || again != name {
		t.Errorf("saved again: %q, %v; want %q", again, err, name)
	}
	list, err := s.Screenshots.List(ctx)
	if err != nil || len(list) != 1 {
		t.Errorf("the store holds %d objects (%v), want 1", len(list), err)
	}
	for _, bad := range []string{"", "t_1", "tasks/t_1/abc.jpg", strings.Replace(name, ".jpg", ".png", 1), strings.Replace(name, "t_1", "t 1", 1), "tasks/../" + name[6:]} {
		if _, err := s.Screenshot(ctx, bad); err == nil || !strings.Contains(err.Error(), "not a screenshot name") {
			t.Errorf("Screenshot(%q): %v, want it refused as not a screenshot name", bad, err)
		}
	}
	if _, err := s.SaveScreenshot(ctx, "t/1", img); err == nil {
		t.Error("a task id with a slash was taken")
	}
}

// An image written under another image's name (as another node could) does not read as
// that screenshot: the digest in the name catches it.
func TestScreenshotOverwrittenIsCaught(t *testing.T) {
	s := openStores(t)
	ctx := t.Context()
	name, err := s.SaveScreenshot(ctx, "t_1", []byte("the real screen"))
	if err != nil {
		t.Fatal(err)
	}
	if err := putScreenshot(ctx, s.JS, name, []byte("a forged screen")); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Screenshot(ctx, name); err == nil || !strings.Contains(err.Error(), "does not match") {
		t.Errorf("a forged screenshot read as %v, want a digest mismatch", err)
	}
}

// Retention: a full store drops its oldest screenshots for new ones (it never refuses a new
// one), and a dropped screenshot reads as gone at once, whether its metadata went too or not.
func TestScreenshotRetentionDropsTheOldest(t *testing.T) {
	s := openStoresWith(t, StoreOptions{ScreenshotsMaxBytes: 1 << 20, ScreenshotsMaxAge: time.Hour})
	ctx := t.Context()
	var names []string
	for range 16 { // 16 × 100 KB, in a store of 1 MiB
		img := make([]byte, 100_000)
		rand.Read(img)
		name, err := s.SaveScreenshot(ctx, "t_1", img)
		if err != nil {
			t.Fatalf("screenshot %d refused: %v", len(names)+1, err)
		}
		names = append(names, name)
	}
	for i, name := range names[:5] {
		// A read that waited for chunks that never come would end with the deadline instead.
		rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		_, err := s.Screenshot(rctx, name)
		cancel()
		if !errors.Is(err, ErrNotFound) {
			t.Errorf("the %d. screenshot, dropped: %v, want ErrNotFound", i+1, err)
		}
	}
	if _, err := s.Screenshot(ctx, names[len(names)-1]); err != nil {
		t.Errorf("the newest screenshot: %v", err)
	}
	info, err := s.screenshotStream.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.State.Bytes > 1<<20 {
		t.Errorf("the store holds %d bytes, over its 1 MiB", info.State.Bytes)
	}
}

// FuzzScreenshotName: any name parses without panicking, and one that parses names its
// task's screenshot.
func FuzzScreenshotName(f *testing.F) {
	f.Add(screenshotName("t_1", []byte("x")))
	f.Add("tasks/t_1/zz.jpg")
	f.Add("tasks//.jpg")
	f.Fuzz(func(t *testing.T, name string) {
		digest, ok := screenshotDigest(name)
		if !ok {
			return
		}
		task := strings.TrimSuffix(strings.TrimPrefix(name, screenshotPrefix), "/"+digest+".jpg")
		if !validToken(task) || !ScreenshotOfTask(name, task) {
			t.Errorf("%q parsed, but its task %q is not a task id", name, task)
		}
	})
}

// A screenshot its node could not save because the node's connection is closing says so, not
// that the node's NATS user may lack permissions or the bucket be full.
func TestScreenshotSavedOnAClosedConnectionSaysSo(t *testing.T) {
	s := openStores(t)
	s.JS.Conn().Close()
	_, err := s.SaveScreenshot(t.Context(), "t_1", []byte("jpeg"))
	if err == nil {
		t.Fatal("saved on a closed connection")
	}
	if !strings.Contains(err.Error(), "NATS connection is closed: the node is stopping") {
		t.Errorf("the error does not say the connection is closed: %v", err)
	}
	if strings.Contains(err.Error(), "publish $O.") || strings.Contains(err.Error(), "bucket full") {
		t.Errorf("the error blames permissions or space: %v", err)
	}
}
