package main

import (
	"encoding/base64"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// printCallResult prints the text of tool's result and, with --out FILE, writes its images:
// one to FILE, several to FILE-1.EXT, FILE-2.EXT, … (each to its own file: one FILE would keep
// only the last). --out - writes the image to standard output and the text to standard error.
// A result with no image writes nothing and is an error, so that a script does not go on with
// a file that was never written.
func printCallResult(tool string, res *mcpgo.CallToolResult, out string) error {
	text := io.Writer(os.Stdout)
	if out == stdoutName {
		text = os.Stderr // standard output carries the image alone
	}
	var images []mcpgo.ImageContent
	for _, c := range res.Content {
		switch c := c.(type) {
		case mcpgo.TextContent:
			fmt.Fprintln(text, c.Text)
		case mcpgo.ImageContent:
			if out == "" {
				fmt.Fprintf(text, "[image %s, %d bytes base64; pass --out FILE to save it]\n", c.MIMEType, len(c.Data))
				continue
			}
			images = append(images, c)
		}
	}
	switch {
	case out == "":
		return nil
	case len(images) == 0:
		return fmt.Errorf("--out %s: the result of %s holds no image, so %s was not written "+
			"(--out saves the image of a tool that returns one, e.g. screenshot)", out, tool, out)
	case out == stdoutName && len(images) > 1:
		return fmt.Errorf("--out -: the result of %s holds %d images, which standard output cannot keep apart, so none was written: "+
			"give --out FILE to write each to its own file, FILE-1.EXT to FILE-%d.EXT", tool, len(images), len(images))
	case out == stdoutName:
		return writeImageTo(os.Stdout, images[0])
	case len(images) > 1:
		fmt.Fprintf(text, "%d images: writing each to its own file, %s to %s\n", len(images), numberedFile(out, 1), numberedFile(out, len(images)))
	}
	for i, img := range images {
		path := out
		if len(images) > 1 {
			path = numberedFile(out, i+1)
		}
		if err := writeImage(path, img); err != nil {
			return err
		}
	}
	return nil
}

// stdoutName is the --out that means standard output, as for corral run --json.
const stdoutName = "-"

// writeImageTo decodes img and writes it to w (standard output for --out -).
func writeImageTo(w io.Writer, img mcpgo.ImageContent) error {
	b, err := base64.StdEncoding.DecodeString(img.Data)
	if err != nil {
		return fmt.Errorf("image content: %w", err)
	}
	if _, err := w.Write(b); err != nil {
		return fmt.Errorf("--out -: writing the image to standard output: %w", err)
	}
	return nil
}

// writeImage decodes img and writes it to path, saying so.
func writeImage(path string, img mcpgo.ImageContent) error {
	b, err := base64.StdEncoding.DecodeString(img.Data)
	if err != nil {
		return fmt.Errorf("image content: %w", err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	fmt.Printf("image written to %s (%d bytes)\n", path, len(b))
	return nil
}

// numberedFile is the n-th of several files named after out: m.jpg → m-1.jpg, shots/m → shots/m-1.
func numberedFile(out string, n int) string {
	ext := filepath.Ext(out)
	if ext == filepath.Base(out) { // a dot file: .jpg → .jpg-1
		ext = ""
	}
	return fmt.Sprintf("%s-%d%s", strings.TrimSuffix(out, ext), n, ext)
}
