package agent

import "fmt"

// nSteps is n plan steps in words: "1 step", "3 steps".
func nSteps(n int) string {
	if n == 1 {
		return "1 step"
	}
	return fmt.Sprintf("%d steps", n)
}

// upToSteps is how many steps a plan may have, in words, each step called kind (may be ""):
// "1 step", "1 to 10 short steps".
func upToSteps(most int, kind string) string {
	if kind != "" {
		kind += " "
	}
	if most == 1 {
		return "1 " + kind + "step"
	}
	return fmt.Sprintf("1 to %d %ssteps", most, kind)
}

// isAre is "1 is", "3 are".
func isAre(n int) string {
	if n == 1 {
		return "1 is"
	}
	return fmt.Sprintf("%d are", n)
}
