package wda

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// Bounds on a UI source. Real ones are a few hundred kilobytes and a few dozen levels deep.
const (
	maxSourceDepth    = 512
	maxSourceElements = 200000
)

// Source returns the UI hierarchy of the app in front as XCUITest XML: one element per view,
// named by its type (XCUIElementTypeButton, …), with name, label, value, enabled, visible,
// accessible and its frame x, y, width, height in points. It needs no session.
func (c *Client) Source(ctx context.Context) (string, error) {
	const route = "/source?format=xml"
	v, err := c.get(ctx, route)
	if err != nil {
		return "", err
	}
	s, err := decodeValue[string](v, "the source")
	if err == nil {
		err = checkSource(s)
	}
	if err != nil {
		return "", c.named(http.MethodGet, route, err)
	}
	return s, nil
}

// checkSource checks that s is one well-formed XML element tree, of XCUITest element types,
// within the bounds above.
func checkSource(s string) error {
	d := xml.NewDecoder(strings.NewReader(s))
	d.Strict = true
	depth, elements, roots := 0, 0, 0
	for {
		tok, err := d.Token() // Token, not RawToken: it checks that end tags match
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("%w: the source is not well-formed XML: %s", ErrBadAnswer, err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if depth == 0 {
				roots++
				if !strings.HasPrefix(t.Name.Local, "XCUIElementType") {
					return fmt.Errorf("%w: the source's root is <%s>, not an XCUIElementType", ErrBadAnswer, clip(t.Name.Local, maxCode))
				}
			}
			depth++
			elements++
			switch {
			case roots > 1:
				return fmt.Errorf("%w: the source has more than one root element", ErrBadAnswer)
			case depth > maxSourceDepth:
				return fmt.Errorf("%w: the source nests deeper than %d", ErrBadAnswer, maxSourceDepth)
			case elements > maxSourceElements:
				return fmt.Errorf("%w: the source has more than %d elements", ErrBadAnswer, maxSourceElements)
			}
		case xml.EndElement:
			depth--
		case xml.CharData:
			if depth == 0 && strings.TrimSpace(string(t)) != "" {
				return fmt.Errorf("%w: the source has text outside its root element", ErrBadAnswer)
			}
		}
	}
	if roots == 0 {
		return fmt.Errorf("%w: the source has no element", ErrBadAnswer)
	}
	if depth != 0 {
		return fmt.Errorf("%w: the source ends inside an element", ErrBadAnswer)
	}
	return nil
}
