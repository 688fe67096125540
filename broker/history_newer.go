package broker

// NewerSkipped is how many records the query matched that were skipped for their newer wire
// version, and the newest version among them: corral tasks says so, as its list is short of them.
func (h History) NewerSkipped() (records, version int) { return h.newer, h.newerV }
