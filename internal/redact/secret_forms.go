package redact

import (
	"cmp"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
)

// secretForms are the ways secret shows in text, longest first: as it is, as the markup
// escapers a tool's answer may hold write it (markupForms), and each of those escaped inside a
// JSON or Go string (a quote, a backslash, <, > and & are). Where a form counts as whole goes
// by the secret's own rune count: an escaped letter is still left in words.
func secretForms(secret string) []string {
	var forms []string
	for _, f := range append([]string{secret}, markupForms(secret)...) {
		forms = append(forms, f)
		if b, err := json.Marshal(f); err == nil {
			forms = append(forms, string(b[1:len(b)-1]))
		}
		q := strconv.Quote(f)
		forms = append(forms, q[1:len(q)-1])
	}
	slices.SortFunc(forms, func(x, y string) int { return cmp.Or(len(y)-len(x), strings.Compare(x, y)) })
	return slices.Compact(forms)
}

// markupEscapers write a secret the way the XML or HTML a tool answers with does (get_source),
// each as one writer spells & < > " ' and the tab, newline and return: a screen shows typed
// text, a field's text in an attribute. Only the writers the drivers and devices use.
var markupEscapers = []*strings.Replacer{
	// Go's encoding/xml (xml.EscapeText: the sim, browser and iOS drivers' get_source).
	strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&#34;", "'", "&#39;",
		"\t", "&#x9;", "\n", "&#xA;", "\r", "&#xD;"),
	// Go's html.EscapeString and html/template: line breaks as they are.
	strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&#34;", "'", "&#39;"),
	// An attribute as uiautomator dump (Android's KXmlSerializer) and WebDriverAgent (libxml2)
	// write it: the apostrophe as it is.
	strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;",
		"\t", "&#9;", "\n", "&#10;", "\r", "&#13;"),
	// XML's named entities, the apostrophe's too (&apos;).
	strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&apos;"),
	// Text between tags, as those writers write it: the quotes as they are.
	strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;"),
}

// markupForms are secret as markupEscapers write it: none for a secret none of them changes.
func markupForms(secret string) []string {
	if !strings.ContainsAny(secret, "&<>\"'\t\n\r") {
		return nil
	}
	var out []string
	for _, r := range markupEscapers {
		if f := r.Replace(secret); f != secret {
			out = append(out, f)
		}
	}
	return out
}
