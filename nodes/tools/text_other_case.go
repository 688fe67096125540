package tools

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// A text asked for in another case than the screen shows it ("sign in" for "Sign In") was
// only "not on screen": matching is case-sensitive, and nothing said the text was there. A
// search that finds nothing looks again in any case, in what it has read already (the UI
// tree's labels, the OCR's lines), and its not-found words name what shows and how to match
// any case (a regex's (?i)).

// otherCase is a text on screen that query matches in another case only; loose is query in
// any case.
type otherCase struct {
	shown        string
	query, loose textQuery
}

// anyCase is q matching in any case (a regex, (?i) first); false when q does already.
func (q textQuery) anyCase() (textQuery, bool) {
	pattern := regexp.QuoteMeta(q.text)
	if q.re != nil {
		pattern = q.text
	}
	if q.text == "" || strings.HasPrefix(pattern, "(?i)") {
		return textQuery{}, false
	}
	re, err := regexp.Compile("(?i)" + pattern)
	if err != nil {
		return textQuery{}, false
	}
	return textQuery{text: "(?i)" + pattern, re: re}, true
}

// firstOtherCase finds the first of qs that shows in another case, hits being where a query
// matches on screen, and the best of its hits.
func firstOtherCase(qs []textQuery, hits func(textQuery) []textHit) (otherCase, bool) {
	for _, q := range qs {
		loose, ok := q.anyCase()
		if !ok {
			continue
		}
		if hit, _, ok := pickFrom(hits(loose), 0); ok {
			return otherCase{shown: hit.Text, query: q, loose: loose}, true
		}
	}
	return otherCase{}, false
}

// hint says what shows and how to match any case; "" when nothing shows in another case.
func (o otherCase) hint() string {
	if o.shown == "" {
		return ""
	}
	how := "start it with (?i)"
	if o.query.re == nil {
		how = "pass regex true and a text starting (?i)"
		if len(o.loose.text) <= 60 {
			how = "pass regex true and text " + strconv.Quote(o.loose.text)
		}
	}
	return fmt.Sprintf("; did you mean %s? %s matches case-sensitively: %s to match any case", strconv.Quote(clip(o.shown)), o.query, how)
}
