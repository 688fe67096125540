package adbsim

import (
	"bytes"
	"encoding/binary"
	"image"
	"image/draw"
	"image/png"
	"strings"
	"time"
)

// pngEncoder is Go's PNG encoder at its default compression, run afresh on every call with
// nothing kept: a phone's screencap -p encodes every time, and Skia's encoder costs no less.
// Timings against `screencap -p` are only honest if the simulated one is not cheaper.
var pngEncoder = png.Encoder{CompressionLevel: png.DefaultCompression}

// dumpTrailer is what uiautomator prints after the dump (the misspelling is Android's).
const dumpTrailer = "UI hierchary dumped to: "

// cmdScreencap runs `screencap [-p] [FILE]`: PNG with -p, otherwise raw RGBA after the
// header (see writeRaw); to FILE if one is given. Each call draws the screen and encodes it
// anew: nothing is kept between calls, as on a phone.
func cmdScreencap(d *Device, c *call) int {
	asPNG, file := false, ""
	for _, a := range c.args[1:] {
		switch {
		case a == "-p":
			asPNG = true
		case strings.HasPrefix(a, "-"):
		default:
			file = a
		}
	}
	img, err := d.phone.Screenshot(c.ctx)
	if err != nil {
		return phoneErr(c, err)
	}
	img = d.currentDisplay().image(img)
	b := c.out // straight to the stream: a framebuffer is 10 MB, not worth a copy
	if file != "" {
		b = &bytes.Buffer{}
	}
	if asPNG || strings.HasSuffix(file, ".png") {
		if err := pngEncoder.Encode(b, img); err != nil {
			c.errorf("Error: %v\n", err)
			return 1
		}
	} else {
		writeRaw(b, img, d.sdk >= colourSpaceSDK)
	}
	if file == "" {
		return 0
	}
	return putFile(d, c, file, b.Bytes())
}

// colourSpaceSDK is the SDK level (Android 8) from which screencap's header has a colour space.
const colourSpaceSDK = 26

// writeRaw writes img as `screencap` does without -p: width, height and format 1 (RGBA), then
// the colour space (0) from Android 8 on, all little-endian 32-bit, then the pixels.
func writeRaw(b *bytes.Buffer, img image.Image, colourSpace bool) {
	r := img.Bounds()
	rgba, ok := img.(*image.RGBA)
	if !ok || rgba.Stride != 4*r.Dx() {
		rgba = image.NewRGBA(image.Rect(0, 0, r.Dx(), r.Dy()))
		draw.Draw(rgba, rgba.Bounds(), img, r.Min, draw.Src)
	}
	header := []uint32{uint32(r.Dx()), uint32(r.Dy()), 1}
	if colourSpace {
		header = append(header, 0)
	}
	b.Grow(4*len(header) + len(rgba.Pix))
	for _, v := range header {
		_ = binary.Write(b, binary.LittleEndian, v)
	}
	b.Write(rgba.Pix)
}

func putFile(d *Device, c *call, p string, data []byte) int {
	if err := d.files.put(cleanPath(p), File{Data: data, Mode: modeFile | 0o660, MTime: time.Now()}); err != nil {
		c.errorf("Error: %s: %v\n", p, err)
		return 1
	}
	return 0
}

// cmdUIAutomator runs `uiautomator dump [--compressed] [FILE]`; FILE /dev/tty writes the XML
// to the output, right before the trailer line.
func cmdUIAutomator(d *Device, c *call) int {
	if len(c.args) < 2 || c.args[1] != "dump" {
		c.errorf("Usage: uiautomator <subcommand> [options]\n\nAvailable subcommands:\n\ndump: creates an XML dump of current UI hierarchy\n")
		return 1
	}
	file := "/sdcard/window_dump.xml"
	for _, a := range c.args[2:] {
		if !strings.HasPrefix(a, "-") {
			file = a
		}
	}
	src, err := d.phone.Source(c.ctx)
	if err != nil {
		return phoneErr(c, err)
	}
	src = d.currentDisplay().source(src)
	if file == "/dev/tty" {
		c.out.WriteString(src)
	} else if st := putFile(d, c, file, []byte(src)); st != 0 {
		return st
	}
	c.printf("%s%s\n", dumpTrailer, file)
	return 0
}
