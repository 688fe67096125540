package tools

// counted is n and its noun, singular for exactly 1 ("1 second", "0.5 seconds", "2 seconds").
func counted(n float64, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return FormatNumber(n) + " " + noun + "s"
}
