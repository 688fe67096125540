package tools

// clip shortens a caller's string for an error message.
func clip(s string) string { return clipN(s, 40) }
