package agent

import "fmt"

// nSteps is n plan steps in words: "1 step", "3 steps".
func nSteps(n int) string {
	if n == 1 {
		return "1 step"
	}
	return fmt.Sprintf("%d steps", n)
}

// upToSteps is how many steps a plan may have, in words: "1 step", "1 to 10 steps".
func upToSteps(most int) string {
	if most == 1 {
		return "1 step"
	}
	return fmt.Sprintf("1 to %d steps", most)
}

// shortSteps is upToSteps for the planning prompt: "1 short step", "1 to 10 short steps".
func shortSteps(most int) string {
	if most == 1 {
		return "1 short step"
	}
	return fmt.Sprintf("1 to %d short steps", most)
}

// isAre is "1 is", "3 are".
func isAre(n int) string {
	if n == 1 {
		return "1 is"
	}
	return fmt.Sprintf("%d are", n)
}
