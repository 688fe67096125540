// Package redact holds the word that stands in for a secret taken out of what Corral shows (a
// URL's password or token, a model endpoint's key), so that every log line and error says the
// same one: an operator grepping for where a secret was hidden finds them all. It also holds
// the one rule for where a task's secret arguments (typed text, passwords) are taken out of
// records, reports and logs (Secrets).
package redact

// Mark replaces a secret: nats://user:REDACTED@host, http://REDACTED@host/v1?api-key=REDACTED.
const Mark = "REDACTED"
