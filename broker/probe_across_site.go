package broker

import "strings"

// A hub's gateway tells a caller whose call to an edge site's node was cut off that the task
// goes on there only if the link is back within a moment, else its node aborts it (lostErr).
// The node keeps that promise by its probes of the caller: no responders, or the gateway's
// "gone", count as gone. A silent cut (a network that drops the packets: no close) gives
// neither, only probes that go unanswered, which from a gateway in the node's own farm mean
// a busy gateway, not a gone one, and say nothing of its caller. So a gateway's probe token
// for a node at an edge site says so (siteProbeSuffix), and such a node takes a probe left
// unanswered for actors.DefaultCallerGoneAfter, while its own NATS server answers, as its
// caller gone. Older nodes read the token as any per-call one (ProbeAnswers).

// siteProbeSuffix ends the probe token a client gives a node at an edge site.
const siteProbeSuffix = "_site"

// ProbeAcrossSite says whether probe is the token of a client that called across a site's
// link (a hub's gateway, to a node at an edge site): one whose probes left unanswered, while
// the node's own server answers, mean the link is cut.
func ProbeAcrossSite(probe string) bool {
	return ProbeAnswers(probe) && strings.HasSuffix(probe, siteProbeSuffix)
}

// tokenOf is the client's probe token for node: its token, marked for a node at a site.
func (p *probeListener) tokenOf(node string) string {
	if p.acrossSite != nil && p.acrossSite(node) {
		return p.token + siteProbeSuffix
	}
	return p.token
}
