package tools

// NoArgs is the argument struct of tools that take only the common device arguments (and
// HttpRunner's general options, which they ignore).
type NoArgs struct {
	SeedOptions
}

// ActionArgs is the argument struct of action tools that take only the common device arguments
// and HttpRunner's behaviour parameters.
type ActionArgs struct {
	Behaviour
}
