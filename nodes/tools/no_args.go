package tools

// NoArgs is the argument struct of tools that take only the common device arguments.
type NoArgs struct{}
