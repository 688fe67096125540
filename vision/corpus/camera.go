package corpus

// CameraConditions are the screens as a camera sees them.
func CameraConditions() []Condition { return nil }
