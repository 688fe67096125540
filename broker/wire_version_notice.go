package broker

import "log/slog"

// newerNoticeKey is the attribute every notice of newerSeen.warn carries (this Corral's wire
// version), and only those.
const newerNoticeKey = "ours"

// NewerWireNotice says whether r is a client's notice of something of a newer wire version it
// skipped or refused (a registry entry, a task record, an answer): a command's farm client,
// which says little else, says these, as what the command lists is short of it.
func NewerWireNotice(r slog.Record) bool {
	found := false
	r.Attrs(func(a slog.Attr) bool {
		found = a.Key == newerNoticeKey
		return !found
	})
	return found
}
